import { Fragment } from "preact";
import { useEffect, useState } from "preact/hooks";
import { type ResourceSource, deleteWarning, sourceFacts, sourceNote } from "../authored";
import { deleteResource, isAdmin } from "../data";
import { type Collection, href, navigate } from "../router";
import { ErrorState, Section } from "../ui";

/** Why a resource authored in a cluster is read-only here, and where to change it instead. */
export function AuthoredNote({ kind, source }: { kind: string; source: ResourceSource }) {
  return (
    <p class="authored" role="note">
      {sourceNote(kind, source)}
    </p>
  );
}

/**
 * A resource's source block (docs/gitops.md#names-and-sources): the cluster, namespace, name and uid
 * of the custom resource it came from, its generation beside the stored one, the note, and — for an
 * admin only — deleting it here, with what that does.
 */
export function SourceBlock(props: { collection: Collection; kind: string; name: string; source: ResourceSource; generation?: number; etag: string | null }) {
  const { kind, source } = props;
  return (
    <Section title="Source">
      <AuthoredNote kind={kind} source={source} />
      <dl class="facts">
        {sourceFacts(source, props.generation).map(([k, v]) => (
          <Fragment key={k}>
            <dt>{k}</dt>
            <dd>{k === "UID" ? <code>{v}</code> : v}</dd>
          </Fragment>
        ))}
      </dl>
      <AdminDelete {...props} />
    </Section>
  );
}

/** Deleting an authored resource here: offered to a tenant admin only, after a warning. */
function AdminDelete({
  collection,
  kind,
  name,
  source,
  etag,
}: {
  collection: Collection;
  kind: string;
  name: string;
  source: ResourceSource;
  etag: string | null;
}) {
  const [admin, setAdmin] = useState(false);
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  useEffect(() => {
    let live = true;
    isAdmin().then(
      (yes) => live && setAdmin(yes),
      () => undefined, // not known: the act is not offered
    );
    return () => {
      live = false;
    };
  }, []);
  if (!admin) return null;

  async function remove() {
    setBusy(true);
    setError(null);
    try {
      await deleteResource(collection, name, etag);
      navigate(href(["policies"]));
    } catch (e) {
      setError(e instanceof Error ? e : new Error(String(e)));
    } finally {
      setBusy(false);
    }
  }

  if (!asking)
    return (
      <p>
        <button type="button" onClick={() => setAsking(true)}>
          Delete…
        </button>
      </p>
    );
  return (
    <div class="warning" role="alert">
      <p>{deleteWarning(kind, source)}</p>
      <button type="button" class="danger" onClick={remove} disabled={busy}>
        {busy ? "Deleting…" : `Delete ${name} from meshplane`}
      </button>
      <button type="button" onClick={() => setAsking(false)} disabled={busy}>
        Cancel
      </button>
      {error && <ErrorState error={error} />}
    </div>
  );
}
