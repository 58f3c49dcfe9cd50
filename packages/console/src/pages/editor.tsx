import { useEffect, useRef, useState } from "preact/hooks";
import { parse, stringify } from "yaml";
import { ApiError, request } from "../api";
import { isAuthoredName, sourceOf } from "../authored";
import { type MeshView, meshes, resource } from "../data";
import { type Plan, PlanView, type Routing, RoutingChoice } from "./plan-view";
import type { JsonSchema } from "../editor/schema";
import { parseErrorPath } from "../editor/schema";
import { type YamlEditor, createYamlEditor } from "../editor/yaml-editor";
import { COLLECTIONS, type Collection, collectionOf, href, isCollection, navigate } from "../router";
import { ErrorState, Loaded, useAsync, useTitle } from "../ui";
import { ReadOnlyYaml } from "./editor-read-only";
import { TEMPLATES } from "./editor-templates";

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

/**
 * Write or change a policy as YAML. "Preview" asks the control plane what each cluster's snapshot
 * would become and the predicted states, without storing anything; "Apply" stores it — a change
 * conditional on the version that was opened (If-Match), so nobody else's edit is lost. A resource
 * authored in a cluster opens read-only, with where to change it instead of the buttons
 * (docs/gitops.md#names-and-sources).
 */
export function Editor({ collection, name }: { collection?: Collection; name?: string }) {
  const verb = name !== undefined && isAuthoredName(name) ? "View" : "Edit";
  useTitle(name ? `${verb} ${name}` : "New policy");
  const data = useAsync(
    async (signal) => {
      const [found, known, discovered] = await Promise.all([
        collection && name ? resource(collection, name, signal) : Promise.resolve(undefined),
        schemas(signal),
        meshes(signal),
      ]);
      return {
        text: found ? editable(found.resource) : TEMPLATES[collection ?? "trafficpolicies"],
        source: found ? sourceOf(found.resource) : undefined,
        etag: found?.etag ?? null,
        schemas: known,
        meshes: discovered,
      };
    },
    [collection, name],
  );
  return (
    <main id="main">
      <p class="crumbs">
        <a href={href(["policies"])}>Policies</a> / {name ? <a href={href(["policies", collection ?? "", name])}>{name}</a> : "new"} /
      </p>
      <h1>{name ? `${verb} ${COLLECTIONS[collection as Collection]} ${name}` : "New policy"}</h1>
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
        {(d) =>
          d.source ? (
            <ReadOnlyYaml key={`${collection ?? ""}/${name ?? ""}`} text={d.text} kind={COLLECTIONS[collection as Collection]} source={d.source} />
          ) : (
            <EditorBody key={`${collection ?? ""}/${name ?? ""}`} initial={d.text} etag={d.etag} schemas={d.schemas} meshes={d.meshes} editing={name} />
          )
        }
      </Loaded>
    </main>
  );
}

function EditorBody({
  initial,
  etag,
  schemas: known,
  meshes: discovered,
  editing,
}: {
  initial: string;
  etag: string | null;
  schemas: Partial<Record<Collection, JsonSchema>>;
  meshes: readonly MeshView[];
  editing: string | undefined;
}) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<YamlEditor | null>(null);
  const [plan, setPlan] = useState<Plan | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState<"preview" | "apply" | null>(null);
  const [stale, setStale] = useState(false);
  const [routing, setRouting] = useState<Routing>({});

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
      const body = { documents: [edited()], ...(Object.keys(routing).length > 0 ? { routing } : {}) };
      setPlan((await request<Plan>("POST", "/v1/plan", { body })).body);
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
      <RoutingChoice
        meshes={discovered}
        routing={routing}
        onChange={(next) => {
          setRouting(next);
          setPlan(null);
        }}
      />
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
