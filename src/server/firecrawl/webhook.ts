/**
 * Firecrawl's `webhook` option on crawls and batch scrapes. Trawl's jobs send their own signed
 * events (job.page, job.completed: API.md sections 5 and 7), whose bodies are not Firecrawl's
 * (`{"type": "crawl.page", "data": […]}`), so the option is refused by name rather than sending
 * bodies a Firecrawl receiver would misread; docs/FIRECRAWL.md points to Trawl's job webhooks.
 */
import { refuse } from './options.js';

export const webhookRule = refuse("Firecrawl-shaped webhooks are not sent; use Trawl's signed job webhooks (POST /v1/crawl with \"async\": true, or /v1/batch/scrape, with \"webhook\")");
