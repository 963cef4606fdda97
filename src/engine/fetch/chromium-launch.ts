/**
 * How Chromium is found and started: its flags (nothing reaches the network around the guarded
 * proxy), the environment it gets, and the init script every context runs. The pool (browser.ts)
 * decides when; this says with what.
 */
import { existsSync } from 'node:fs';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
/**
 * Chromium reads only the last `--disable-features`, and Playwright passes its own before ours: its
 * list (playwright-core 1.65's chromiumSwitches) is repeated here so that ours does not undo it —
 * without it Chromium tries every http:// navigation over https first (HttpsUpgrades) and holds
 * paint (PaintHolding).
 */
const DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  // Ours: no prefetching around the proxy; the network service in its own process.
  'NetworkPrediction',
  'NetworkServiceInProcess',
  // Every new window of the full headless browser preloads the address bar's WebUI popups in a renderer of their own: ~2× the CPU of a simple page.
  'WebUIOmniboxPopup',
  'WebUIOmniboxAimPopup',
  'WebUIOmniboxFullPopup',
];
export const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--mute-audio',
  // navigator.webdriver stays false: no page can read that the browser is driven (issue 42).
  '--disable-blink-features=AutomationControlled',
  // Nothing around the proxy: no name resolved by Chromium (the proxy resolves), no UDP that
  // WebRTC would send outside it, no prefetching.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--dns-prefetch-disable',
  `--disable-features=${DISABLED_FEATURES.join(',')}`,
];
/** Chromium exempts loopback from proxies unless told otherwise. */
export const BYPASS = '<-loopback>';

/** Chromium gets no secret of the service's environment (a renderer exploit would read them): only what it needs to run. */
const KEEP_ENV = [
  'PATH',
  'HOME',
  'TMPDIR',
  'LANG',
  'LC_ALL',
  'TZ',
  'FONTCONFIG_PATH',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_RUNTIME_DIR',
];
export function browserEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of KEEP_ENV) if (process.env[k] !== undefined) env[k] = process.env[k]!;
  return env;
}

export function findChromium(configured?: string): string | undefined {
  if (configured) return existsSync(configured) ? configured : undefined;
  return CANDIDATES.find((p) => existsSync(p));
}
