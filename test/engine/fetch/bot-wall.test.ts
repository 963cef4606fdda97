/**
 * Bot walls (bot-wall.ts): a page is a wall when a vendor's interstitial stands in for it, or
 * when a challenge widget sits on a page that withholds its content. Vendor block pages
 * (replicas in test/fixtures/bot-walls) must stay `blocked`; full pages that embed a widget
 * for their own sign-up, contact, comment or login form must not.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  WITHHELD_MAX_PARAGRAPHS,
  WITHHELD_MAX_TEXT,
  contentSignals,
  detectBotWall,
  mayBeWall,
  withholdsContent,
} from '../../../src/engine/fetch/bot-wall.js';

const fixture = (name: string) => readFileSync(join(__dirname, '../../fixtures/bot-walls', name), 'utf8');

describe('must match: vendor walls stay blocked', () => {
  it.each([
    ['cloudflare-managed-challenge.html', 'Cloudflare challenge'],
    ['cloudflare-blocked.html', 'Cloudflare block page'],
    ['akamai-access-denied.html', 'Akamai block page'],
    ['datadome-captcha.html', 'DataDome captcha'],
    ['perimeterx-press-hold.html', 'PerimeterX (HUMAN) challenge'],
    ['imperva-incident.html', 'Imperva (Incapsula) block page'],
    ['google-unusual-traffic.html', 'captcha'],
    ['hcaptcha-gate.html', 'captcha'],
    ['turnstile-gate.html', 'Cloudflare Turnstile'],
  ])('%s → %s (at 200 and 403)', (file, name) => {
    const html = fixture(file);
    expect(detectBotWall(200, html)).toBe(name);
    expect(detectBotWall(403, html)).toBe(name);
  });

  it('reads Akamai\'s "Reference #" written with entities', () => {
    const page = (ref: string) =>
      `<HTML><HEAD><TITLE>Access Denied</TITLE></HEAD><BODY><H1>Access Denied</H1>You don't have permission to access this server.<P>${ref}</BODY></HTML>`;
    expect(detectBotWall(200, page('Reference&#32;#18.2f3c1402.1732800000.4a1b2c3d'))).toBe('Akamai block page');
    expect(detectBotWall(403, page('Reference&#32;&#35;18&#46;2f3c1402'))).toBe('Akamai block page');
    expect(detectBotWall(200, page('Reference&#x20;&#x23;18&#x2e;2f3c1402'))).toBe('Akamai block page');
    expect(detectBotWall(200, page('Reference #18.2f3c1402.1732800000.4a1b2c3d'))).toBe('Akamai block page');
  });

  it('is a wall whatever else an interstitial holds: a managed challenge with a form of fields', () => {
    const html = fixture('cloudflare-managed-challenge.html').replace(
      '<div id="challenge-stage"></div>',
      '<form id="challenge-form"><input type="text" name="email"><div class="cf-turnstile"></div></form>',
    );
    expect(detectBotWall(200, html)).toBe('Cloudflare challenge');
  });
});

describe('must not match: pages that embed a challenge for a form of their own', () => {
  it.each([
    ['forum-thread-turnstile.html', 'a forum thread with Turnstile in its sign-up form'],
    ['contact-recaptcha.html', 'a contact page with a reCAPTCHA v2 checkbox'],
    ['article-hcaptcha-comments.html', 'an article with hCaptcha on its comment form'],
    ['login-turnstile.html', 'a login page with Turnstile: the login form is the content'],
  ])('%s (%s)', (file) => {
    expect(detectBotWall(200, fixture(file))).toBeUndefined();
  });

  it('keeps a thread whose widget is drawn by script (no form to guard): its paragraphs are content', () => {
    const html = fixture('forum-thread-turnstile.html').replace(
      /<div class="ipsBox ipsPad" id="elGuestSignUp">[\s\S]*?<\/form>\s*<\/div>/,
      '',
    );
    expect(html).not.toContain('elGuestSignUp');
    const s = contentSignals(html);
    expect(s.guardedFields).toBe(0);
    expect(s.paragraphs).toBe(WITHHELD_MAX_PARAGRAPHS);
    expect(detectBotWall(200, html)).toBeUndefined();
  });

  it("does not take Turnstile's rendered widget id (cf-chl-widget-…) for Cloudflare's challenge page", () => {
    const rendered = fixture('login-turnstile.html').replace(
      '<div class="cf-turnstile" data-sitekey="0x4AAAAAAAC3dE4fG5hI6jK7"></div>',
      '<div class="cf-turnstile"><iframe id="cf-chl-widget-a1b2c" src="https://challenges.cloudflare.com/cdn-cgi/challenge-platform/h/b/turnstile/if/ov2/av0/rcv/a1b2c/0x4AAAAAAAC3dE4fG5hI6jK7/light/fbE/new/normal/auto/"></iframe><input type="hidden" name="cf-turnstile-response" id="cf-chl-widget-a1b2c_response"></div>',
    );
    expect(detectBotWall(200, rendered)).toBeUndefined();
  });

  it("keeps an article that quotes a wall's words, when it is long (the interstitial guard)", () => {
    const para =
      '<p>We kept seeing "Request unsuccessful. Incapsula incident ID" while testing our own scraper last week.</p>';
    expect(
      detectBotWall(200, `<html><head><title>Scraping notes</title></head><body>${para.repeat(150)}</body></html>`),
    ).toBeUndefined();
  });

  it('keeps an ASP.NET page whose page-wide form holds a reCAPTCHA', () => {
    const body =
      '<p>Our opening hours change over the holidays, and the branch on Mill Road closes early on Fridays.</p>'.repeat(
        8,
      );
    const html = `<html><head><script src="https://www.google.com/recaptcha/api.js"></script></head><body><form id="aspnetForm" method="post"><input type="hidden" name="__VIEWSTATE" value="x">${body}<div class="g-recaptcha" data-sitekey="k"></div></form></body></html>`;
    expect(contentSignals(html).text).toBeGreaterThan(WITHHELD_MAX_TEXT / 2);
    expect(detectBotWall(200, html)).toBeUndefined();
  });
});

describe('the withholding signals', () => {
  it('counts fields a person fills in, not hidden fields, buttons or the captcha answer', () => {
    const s =
      contentSignals(`<form><input type="hidden" name="t"><input type="submit"><input type="checkbox" name="remember">
      <input name="captcha_answer"><input type="text" name="g-recaptcha-response"><div class="g-recaptcha"></div></form>`);
    expect(s.guardedFields).toBe(0);
    expect(
      contentSignals(
        '<form><input name="q"><select name="s"></select><textarea></textarea><div class="h-captcha"></div></form>',
      ).guardedFields,
    ).toBe(3);
  });

  it('ignores forms without a challenge and text in scripts', () => {
    const s = contentSignals(
      `<form><input type="email" name="newsletter"></form><script>var t = "${'x'.repeat(5000)}";</script><p>Short.</p>`,
    );
    expect(s).toEqual({ text: 6, paragraphs: 0, guardedFields: 0 });
  });

  it('withholds when all three are low, not when any one is high', () => {
    expect(withholdsContent({ text: 200, paragraphs: 1, guardedFields: 0 })).toBe(true);
    expect(withholdsContent({ text: WITHHELD_MAX_TEXT, paragraphs: 0, guardedFields: 0 })).toBe(false);
    expect(withholdsContent({ text: 200, paragraphs: WITHHELD_MAX_PARAGRAPHS, guardedFields: 0 })).toBe(false);
    expect(withholdsContent({ text: 200, paragraphs: 0, guardedFields: 1 })).toBe(false);
  });
});

describe("the first pass: DataDome's and Kasada's markers as their pages write them", () => {
  const datadome = (rt: string) =>
    `<html lang="en"><head><title>shop.example</title></head><body><script data-cfasync="false">var dd={'rt':'${rt}','cid':'AHrlqAAAAAMA1b2c','hsh':'0D4C1E2F','t':'fe','s':43337,'e':'a1b2','host':'geo.captcha-delivery.com'}</script><script data-cfasync="false" src="https://ct.captcha-delivery.com/${rt}.js"></script></body></html>`;
  const kasada = (query: string) =>
    `<html><head><link rel="icon" href="data:;base64,iVBORw0KGgo="><script>window.KPSDK={};KPSDK.now=typeof performance!=='undefined'&&performance.now?performance.now.bind(performance):Date.now.bind(Date);KPSDK.start=KPSDK.now();</script><script src="/149e9513-01fa-4fb0-aad4-566afd725d1b/2d206a39-8ed7-437e-a3be-862e0f06eea3/ips.js?${query}"></script></head><body></body></html>`;
  const kasadaBare = (query: string) =>
    `<html><head><script src="/149e9513-01fa/2d206a39/ips.js?${query}"></script></head><body></body></html>`;

  it.each([
    ['DataDome device check', datadome('i'), 'DataDome device check'],
    ['DataDome captcha', datadome('c'), 'DataDome captcha'],
    [
      'DataDome, keys in another order',
      datadome('i').replace("{'rt':'i','cid'", "{'cid':'x','rt':'i','c'"),
      'DataDome device check',
    ],
    ['Kasada, its SDK start and ips.js', kasada('tkrm_alpekz_s1.3=0Xa1b2c3'), 'Kasada challenge'],
    ['Kasada, ips.js with tkrm_alpekz only', kasadaBare('tkrm_alpekz_s1.3=0Xa1b2c3'), 'Kasada challenge'],
    ['Kasada, ips.js with KP_UIDz', kasadaBare('KP_UIDz=abc'), 'Kasada challenge'],
  ])('must match: %s', (_name, html, wall) => {
    expect(mayBeWall(html)).toBe(true);
    expect(detectBotWall(429, html)).toBe(wall);
    expect(detectBotWall(200, html)).toBe(wall);
  });

  const article = (script: string) =>
    `<html><head><title>Kettles</title>${script}</head><body><article><h1>Kettles</h1><p>A public article about kettles and how long they take to boil water.</p></article></body></html>`;
  it.each([
    ['a variable named ddl', article('<script>var ddl = document.getElementById("menu");</script>')],
    ['a variable named dd (a date)', article('<script>var dd = new Date(); var mm = dd.getMonth();</script>')],
    ['an object named dd without DataDome keys', article("<script>var dd = { 'open': false, 'items': [] };</script>")],
    ['tooltips.js', article('<script src="/static/js/tooltips.js?v=3"></script>')],
    ['chips.js and clips.js', article('<script src="/chips.js"></script><script src="/media/clips.js?id=4"></script>')],
    ['a script named ips.js with no Kasada parameter', article('<script src="/assets/ips.js?v=12"></script>')],
  ])('must not match: %s', (_name, html) => {
    expect(mayBeWall(html)).toBe(false);
    expect(detectBotWall(200, html)).toBeUndefined();
    expect(detectBotWall(403, html)).toBeUndefined();
  });

  it("must not match: an ordinary page of a site Kasada guards (its SDK's start, no ips.js)", () => {
    const html = article(
      "<script>window.KPSDK={};KPSDK.now=Date.now.bind(Date);KPSDK.start=KPSDK.now();</script><script src='/149e9513/2d206a39/p.js'></script>",
    );
    expect(detectBotWall(200, html)).toBeUndefined();
  });

  it('every vendor fixture still passes the first pass', () => {
    for (const f of [
      'cloudflare-managed-challenge.html',
      'cloudflare-blocked.html',
      'akamai-access-denied.html',
      'datadome-captcha.html',
      'perimeterx-press-hold.html',
      'imperva-incident.html',
    ])
      expect(mayBeWall(fixture(f)), f).toBe(true);
  });
});
