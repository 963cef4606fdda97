/** The consent walls a render dismisses before the caller's steps, the read and the screenshot (issue 42). */

/**
 * Consent walls of the common consent platforms (OneTrust, Cookiebot, Didomi, Quantcast,
 * Usercentrics, TrustArc, Google's Funding Choices, Sourcepoint): "reject all" when the wall
 * offers it (no consent is given on the caller's behalf), else "accept"; a wall with neither
 * is removed, and the page's scroll lock with it. True when there was one.
 */
export const DISMISS_CONSENT = `(() => {
  const REJECT = ['#onetrust-reject-all-handler', '#CybotCookiebotDialogBodyButtonDecline', '#didomi-notice-disagree-button', '.qc-cmp2-summary-buttons button[mode="secondary"]', 'button[data-testid="uc-deny-all-button"]', '.fc-cta-do-not-consent'];
  const ACCEPT = ['#onetrust-accept-btn-handler', '#CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll', '#didomi-notice-agree-button', '.qc-cmp2-summary-buttons button[mode="primary"]', 'button[data-testid="uc-accept-all-button"]', '#truste-consent-button', '.fc-cta-consent'];
  const WALLS = ['#onetrust-consent-sdk', '#CybotCookiebotDialog', '#didomi-host', '.qc-cmp2-container', '#usercentrics-root', '#truste-consent-track', '.truste_overlay', '.fc-consent-root', '[id^="sp_message_container"]'];
  const walls = WALLS.map((s) => document.querySelector(s)).filter(Boolean);
  if (!walls.length) return false;
  const visible = (e) => e && e.getClientRects().length > 0;
  const button = [...REJECT, ...ACCEPT].map((s) => document.querySelector(s)).find(visible);
  if (button) button.click();
  setTimeout(() => {
    for (const s of WALLS) for (const e of document.querySelectorAll(s)) e.remove();
    for (const e of [document.documentElement, document.body]) if (e && getComputedStyle(e).overflow === 'hidden') e.style.setProperty('overflow', 'visible', 'important');
  }, 50);
  return true;
})()`;
