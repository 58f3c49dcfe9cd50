import { type CertificateDirective, type CertificateResult, KEY_ALGORITHMS, dnsLabel } from "@meshplane/core";
import { z } from "zod";

const fingerprint = z.string().regex(/^sha256:[0-9a-f]{64}$/, "must be sha256:<64 hex digits>");

// The snapshot is signed, but a directive is still parsed once here (STYLE.md 5): the stages after it
// write Secrets and restart workloads from these fields. Unknown fields are dropped, so a newer
// control plane can add some without breaking older agents.
const directive = z.object({
  mesh: z.string().min(1).max(253),
  virtualMesh: z.string().min(1),
  identity: z.string().regex(/^spiffe:\/\/[^/]+\/ns\/[^/]+\/sa\/[^/]+$/, "must be spiffe://<trust domain>/ns/<namespace>/sa/<service account>"),
  secretNamespace: dnsLabel,
  secretName: z.literal("cacerts"),
  ttlDays: z.number().positive(),
  rotateBeforeDays: z.number().min(0),
  keyAlgorithm: z.enum(KEY_ALGORITHMS),
  autoRestartPods: z.boolean(),
  issuer: fingerprint,
  trustBundle: z.array(fingerprint).min(1),
}) satisfies z.ZodType<CertificateDirective>;

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
