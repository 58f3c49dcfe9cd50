/**
 * The signed-in credential. It lives in session storage only: gone when the tab closes, never in a
 * URL, a cookie or a log. Operators sign in with the operator credential (`mpo_…`) and see tenants;
 * everyone else with a tenant token (`mpt_…`).
 */
const KEY = "meshplane.token";

type Listener = () => void;
const listeners = new Set<Listener>();
let expiredNotice = false;

export const session = {
  token(): string | null {
    return sessionStorage.getItem(KEY);
  },
  role(): "operator" | "tenant" | null {
    const t = session.token();
    if (!t) return null;
    return t.startsWith("mpo_") ? "operator" : "tenant";
  },
  signIn(token: string): void {
    sessionStorage.setItem(KEY, token);
    expiredNotice = false;
    for (const l of listeners) l();
  },
  /** Signing out forgets everything the console kept in this tab. */
  signOut(): void {
    sessionStorage.clear();
    for (const l of listeners) l();
  },
  /** The API refused the credential (revoked or expired): sign out and say why on the sign-in page. */
  expired(): void {
    if (!session.token()) return;
    expiredNotice = true;
    sessionStorage.clear();
    for (const l of listeners) l();
  },
  takeExpiredNotice(): boolean {
    const was = expiredNotice;
    expiredNotice = false;
    return was;
  },
  subscribe(l: Listener): () => void {
    listeners.add(l);
    return () => listeners.delete(l);
  },
};
