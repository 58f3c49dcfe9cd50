import { reasonsOf, type StatusReasons } from "@meshplane/core/views";
import { structuredPatch } from "diff";
import { useEffect, useRef, useState } from "preact/hooks";
import { parse, stringify } from "yaml";
import { ApiError, request } from "../api";
import { resource } from "../data";
import type { JsonSchema } from "../editor/schema";
import { parseErrorPath } from "../editor/schema";
import { type YamlEditor, createYamlEditor } from "../editor/yaml-editor";
import { COLLECTIONS, type Collection, collectionOf, href, isCollection, navigate } from "../router";
import { ErrorState, Loaded, StateBadge, useAsync, useTitle, Errors } from "../ui";

type PlannedObject = { kind: string; metadata: { name: string; namespace?: string } };
interface Plan {
  clusters: Record<
    string,
    { added: PlannedObject[]; changed: PlannedObject[]; previous?: PlannedObject[]; removed: { kind: string; name: string; namespace?: string }[] }
  >;
  statuses: Record<string, StatusReasons & { state: string }>;
}

const TEMPLATES: Record<Collection, string> = {
  trafficpolicies: `apiVersion: meshplane.dev/v1
kind: TrafficPolicy
metadata:
  name: my-policy
spec:
  destinationSelector:
  - kubeServiceMatcher:
      namespaces: [default]
  policy:
    requestTimeout: 5s
`,
  accesspolicies: `apiVersion: meshplane.dev/v1
kind: AccessPolicy
metadata:
  name: my-access
spec:
  sourceSelector:
  - kubeIdentityMatcher:
      namespaces: [default]
  destinationSelector:
  - kubeServiceMatcher:
      namespaces: [default]
  allowedMethods: [GET]
`,
  virtualmeshes: `apiVersion: meshplane.dev/v1
kind: VirtualMesh
metadata:
  name: my-virtual-mesh
spec:
  meshes:
  - name: MESH-NAME
  mtlsConfig:
    shared:
      rootCertificateAuthority:
        generated: {}
`,
};

/** Each kind's create-body schema, from the API's OpenAPI document. */
async function schemas(signal: AbortSignal): Promise<Partial<Record<Collection, JsonSchema>>> {
  const { body } = await request<{ paths: Record<string, { post?: { requestBody?: { content?: Record<string, { schema?: JsonSchema }> } } }> }>(
    "GET",
    "/openapi.json",
    { signal },
  );
  return Object.fromEntries(
    (Object.keys(COLLECTIONS) as Collection[]).map((c) => [c, body.paths[`/v1/${c}`]?.post?.requestBody?.content?.["application/json"]?.schema]),
  );
}

const asYaml = (o: unknown) => stringify(o, { lineWidth: 0 });

/** What a user may edit: what they wrote, without what the server keeps (status, versions, timestamps). */
function editable(r: {
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: unknown;
}): string {
  const { name, labels, annotations } = r.metadata as { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  return asYaml({
    apiVersion: "meshplane.dev/v1",
    kind: r.kind,
    metadata: { name, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) },
    spec: r.spec,
  });
}

const title = (o: { kind: string; name: string; namespace?: string }) => `${o.kind} ${o.namespace ? `${o.namespace}/` : ""}${o.name}`;

function PlanView({ plan }: { plan: Plan }) {
  const clusters = Object.entries(plan.clusters).sort(([a], [b]) => a.localeCompare(b));
  return (
    <div class="plan" aria-live="polite">
      <h2>Preview</h2>
      <h3>Predicted states</h3>
      <ul>
        {Object.entries(plan.statuses)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([key, status]) => (
            <li key={key}>
              {key}: <StateBadge state={status.state} />
              <Errors errors={reasonsOf(status)} />
            </li>
          ))}
      </ul>
      <h3>What each cluster would get</h3>
      {clusters.length === 0 && <p>No cluster is registered.</p>}
      {clusters.map(([cluster, c]) => {
        const total = c.added.length + c.changed.length + c.removed.length;
        return (
          <details key={cluster} open={total > 0}>
            <summary>
              cluster {cluster}: {total === 0 ? "no change" : `${c.added.length} added, ${c.changed.length} changed, ${c.removed.length} removed`}
            </summary>
            {c.added.map((o) => (
              <details key={`+${title({ kind: o.kind, ...o.metadata })}`} class="added">
                <summary>+ {title({ kind: o.kind, ...o.metadata })}</summary>
                <pre>{asYaml(o)}</pre>
              </details>
            ))}
            {c.changed.map((o, i) => {
              const before = c.previous?.[i];
              const hunks = before ? structuredPatch("before", "after", asYaml(before), asYaml(o), "", "", { context: 2 }).hunks : [];
              return (
                <details key={`~${title({ kind: o.kind, ...o.metadata })}`} class="changed" open>
                  <summary>~ {title({ kind: o.kind, ...o.metadata })}</summary>
                  <pre>
                    {hunks.flatMap((h) => [
                      <span class="hunk" key={`h${h.oldStart}`}>{`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@\n`}</span>,
                      ...h.lines.map((line, j) => (
                        <span key={`${h.oldStart}-${j}`} class={line.startsWith("+") ? "ins" : line.startsWith("-") ? "del" : ""}>{`${line}\n`}</span>
                      )),
                    ])}
                  </pre>
                </details>
              );
            })}
            {c.removed.map((o) => (
              <p key={`-${title(o)}`} class="removed">
                − {title(o)}
              </p>
            ))}
          </details>
        );
      })}
    </div>
  );
}

/**
 * Write or change a policy as YAML. "Preview" asks the control plane what each cluster's snapshot
 * would become and the predicted states, without storing anything; "Apply" stores it — a change
 * conditional on the version that was opened (If-Match), so nobody else's edit is lost.
 */
export function Editor({ collection, name }: { collection?: Collection; name?: string }) {
  useTitle(name ? `Edit ${name}` : "New policy");
  const data = useAsync(
    async (signal) => {
      const [found, known] = await Promise.all([collection && name ? resource(collection, name, signal) : Promise.resolve(undefined), schemas(signal)]);
      return { text: found ? editable(found.resource) : TEMPLATES[collection ?? "trafficpolicies"], etag: found?.etag ?? null, schemas: known };
    },
    [collection, name],
  );
  return (
    <main id="main">
      <p class="crumbs">
        <a href={href(["policies"])}>Policies</a> / {name ? <a href={href(["policies", collection ?? "", name])}>{name}</a> : "new"} /
      </p>
      <h1>{name ? `Edit ${COLLECTIONS[collection as Collection]} ${name}` : "New policy"}</h1>
      {!name && (
        <p>
          Start from:{" "}
          {(Object.keys(COLLECTIONS) as Collection[]).map((c) => (
            <a key={c} class="button" href={href(["edit", c])} aria-current={c === (collection ?? "trafficpolicies") ? "true" : undefined}>
              {COLLECTIONS[c]}
            </a>
          ))}
        </p>
      )}
      <Loaded value={data} what="the editor">
        {(d) => <EditorBody key={`${collection ?? ""}/${name ?? ""}`} initial={d.text} etag={d.etag} schemas={d.schemas} editing={name} />}
      </Loaded>
    </main>
  );
}

function EditorBody({
  initial,
  etag,
  schemas: known,
  editing,
}: {
  initial: string;
  etag: string | null;
  schemas: Partial<Record<Collection, JsonSchema>>;
  editing: string | undefined;
}) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<YamlEditor | null>(null);
  const [plan, setPlan] = useState<Plan | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState<"preview" | "apply" | null>(null);
  const [stale, setStale] = useState(false);

  useEffect(() => {
    const kind = (parse(initial) as { kind?: string } | null)?.kind;
    const collection = kind ? collectionOf(kind) : undefined;
    editor.current = createYamlEditor(host.current as HTMLDivElement, initial, collection ? known[collection] : undefined, {
      label: "Policy YAML",
      onChange: () => {
        setPlan(null);
        setStale(false);
      },
    });
    return () => editor.current?.destroy();
  }, [initial, known]);

  /** The one document in the editor, or an error naming what is wrong with it. */
  function edited(): { kind: string; metadata: { name: string } } {
    let doc: unknown;
    try {
      doc = parse(editor.current?.text() ?? "");
    } catch (e) {
      throw new ApiError(400, `the YAML does not parse: ${(e as Error).message.split("\n")[0]}`);
    }
    const d = doc as { kind?: unknown; metadata?: { name?: unknown } } | null;
    if (!d || typeof d !== "object" || typeof d.kind !== "string" || !isCollection(collectionOf(d.kind)))
      throw new ApiError(400, "kind must be VirtualMesh, TrafficPolicy or AccessPolicy", [
        { path: "kind", message: "must be VirtualMesh, TrafficPolicy or AccessPolicy" },
      ]);
    if (typeof d.metadata?.name !== "string") throw new ApiError(400, "metadata.name is required", [{ path: "metadata.name", message: "is required" }]);
    if (editing && d.metadata.name !== editing)
      throw new ApiError(400, `metadata.name must stay ${editing} (to make a copy under another name, start a new policy)`, [
        { path: "metadata.name", message: `must be ${editing}` },
      ]);
    return d as { kind: string; metadata: { name: string } };
  }

  function fail(e: unknown) {
    const err = e instanceof Error ? e : new Error(String(e));
    setError(err);
    if (err instanceof ApiError) editor.current?.showServerProblems(err.errors.map((f) => ({ path: parseErrorPath(f.path), message: f.message })));
  }

  async function preview() {
    setBusy("preview");
    setError(null);
    try {
      const { body } = await request<Plan>("POST", "/v1/plan", { body: { documents: [edited()] } });
      setPlan(body);
    } catch (e) {
      fail(e);
    } finally {
      setBusy(null);
    }
  }

  async function apply() {
    setBusy("apply");
    setError(null);
    try {
      const doc = edited();
      const collection = collectionOf(doc.kind) as Collection;
      if (editing) await request("PUT", `/v1/${collection}/${encodeURIComponent(editing)}`, { body: doc, headers: etag ? { "if-match": etag } : {} });
      else await request("POST", `/v1/${collection}`, { body: doc });
      navigate(href(["policies", collection, doc.metadata.name]));
    } catch (e) {
      if (e instanceof ApiError && e.status === 412) setStale(true);
      fail(e);
    } finally {
      setBusy(null);
    }
  }

  return (
    <>
      <div ref={host} class="editor" />
      <p class="hint">
        Ctrl-Space completes keys and values from the API's schema; problems are underlined as you type. Preview checks everything the control plane checks. Tab
        indents; Esc then Tab leaves the editor.
      </p>
      <div class="actions">
        <button type="button" onClick={preview} disabled={busy !== null}>
          {busy === "preview" ? "Previewing…" : "Preview"}
        </button>
        <button
          type="button"
          class="primary"
          onClick={apply}
          disabled={busy !== null || plan === null}
          title={plan === null ? "Preview first, to see what it would do" : undefined}
        >
          {busy === "apply" ? "Applying…" : "Apply"}
        </button>
      </div>
      {stale && (
        <p class="state error" role="alert">
          Someone changed this policy since you opened it, so nothing was stored.{" "}
          <a href={location.hash} onClick={() => location.reload()}>
            Reload it
          </a>{" "}
          and make your change again.
        </p>
      )}
      {error && !stale && <ErrorState error={error} />}
      {plan && <PlanView plan={plan} />}
    </>
  );
}
