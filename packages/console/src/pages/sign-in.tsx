import { useState } from "preact/hooks";
import { ApiError, request } from "../api";
import { session } from "../session";
import { useTitle } from "../ui";

/**
 * Sign in with a tenant token or the operator credential. The token is checked against the API
 * before it is kept; it goes into session storage only, and the form never submits it anywhere (no
 * URL, no history entry).
 */
export function SignIn() {
  useTitle("Sign in");
  const [expired] = useState(() => session.takeExpiredNotice());
  const [error, setError] = useState<string | null>(expired ? "Your credential was refused (expired or revoked): sign in again." : null);
  const [busy, setBusy] = useState(false);

  async function submit(event: SubmitEvent) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const input = form.elements.namedItem("token") as HTMLInputElement;
    const token = input.value.trim();
    if (!/^mp[to]_[A-Za-z0-9_-]{20,}$/.test(token)) {
      setError("That is not a meshplane credential: tenant tokens start with mpt_, the operator credential with mpo_.");
      return;
    }
    setBusy(true);
    setError(null);
    // Probe with a read the credential's role allows, with the token in the header only.
    const probe = token.startsWith("mpo_") ? "/v1/tenants?limit=1" : "/v1/clusters?limit=1";
    try {
      await request("GET", probe, { headers: { authorization: `Bearer ${token}` } });
      input.value = "";
      session.signIn(token);
      if (!location.hash || location.hash === "#") history.replaceState(null, "", "#/");
    } catch (e) {
      const refused = e instanceof ApiError && (e.status === 401 || e.status === 403);
      setError(refused ? "the control plane refused this credential" : e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" class="sign-in">
      <h1>meshplane</h1>
      <p>Sign in with a tenant token (or, to manage tenants, the operator credential).</p>
      <form onSubmit={submit} autocomplete="off" method="post" action="#">
        <label for="token">Token</label>
        <input id="token" name="token" type="password" required spellcheck={false} autocomplete="off" aria-describedby={error ? "sign-in-error" : undefined} />
        <button type="submit" disabled={busy}>
          {busy ? "Checking…" : "Sign in"}
        </button>
      </form>
      {error && (
        <p id="sign-in-error" class="state error" role="alert">
          {error}
        </p>
      )}
      <p class="hint">
        The token is kept in this tab only (session storage) and sent to this control plane alone. <code>meshplane token create</code> makes one;{" "}
        <code>npm start</code> prints the first.
      </p>
    </main>
  );
}
