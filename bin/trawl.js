#!/usr/bin/env node
// The compiled CLI (npm install runs the build through `prepare`).
import { main } from '../dist/cli/index.js';

await main();
