import { type CertificateDirective, type CertificateResult, certificateDirective } from "@meshplane/core";

// The snapshot is signed, but each directive is still parsed at this boundary, once, with the
// protocol's schema from core (docs/style.md#5-parse-at-the-boundary-once-then-trust-the-types).
const directive = certificateDirective satisfies { parse: (v: unknown) => CertificateDirective };

/**
 * The certificate directives of a verified snapshot, sorted by mesh. A directive that does not parse
 * is left out and becomes a `failed` result naming the problem (under its mesh when it has a readable
 * one, else `unknown`), so one bad entry cannot stop the others.
 */
export function parseDirectives(raw: readonly unknown[]): { directives: CertificateDirective[]; refused: CertificateResult[] } {
  const directives: CertificateDirective[] = [];
  const refused: CertificateResult[] = [];
  for (const entry of raw) {
    const parsed = directive.safeParse(entry);
    if (parsed.success) {
      directives.push(parsed.data);
      continue;
    }
    const mesh = (entry as { mesh?: unknown } | null)?.mesh;
    const issue = parsed.error.issues[0];
    refused.push({
      mesh: typeof mesh === "string" && mesh.length > 0 && mesh.length <= 253 ? mesh : "unknown",
      state: "failed",
      error: `the snapshot's certificate directive is invalid (${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}); this is a control-plane bug`,
    });
  }
  return { directives: directives.sort((a, b) => (a.mesh < b.mesh ? -1 : a.mesh > b.mesh ? 1 : 0)), refused };
}
