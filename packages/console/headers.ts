/**
 * The headers every console answer carries, locally (functions/local/console.ts) and on AWS (the
 * CloudFront response headers policy, infra/lib/console.ts). Scripts, styles and requests go to the
 * console's own origin only — the API shares it, so `connect-src 'self'` is all it needs; no inline
 * script or style, no frames, no plugins.
 */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'report-sample'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONSOLE_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
};
