import { listAll } from "../api";
import { Empty, Loaded, useAsync, useTitle, Table } from "../ui";

interface TenantView {
  id: string;
  createdAt?: string;
  revision?: number;
  translatedRevision?: number;
}

/** The operator's view: every tenant, and whether translation has caught up with its writes. */
export function Tenants() {
  useTitle("Tenants");
  const data = useAsync((signal) => listAll<TenantView>("/v1/tenants", { signal }), []);
  return (
    <main id="main">
      <h1>Tenants</h1>
      <p class="hint">
        Signed in with the operator credential. Tenants are created with <code>meshplane tenant create</code>; their own pages need a tenant token.
      </p>
      <Loaded value={data} what="tenants">
        {(tenants) =>
          tenants.length === 0 ? (
            <Empty>No tenant yet.</Empty>
          ) : (
            <Table head={["Tenant", "Created", "Revision", "Translated"]}>
              {tenants.map((t) => (
                <tr key={t.id}>
                  <th scope="row">{t.id}</th>
                  <td>{t.createdAt?.slice(0, 19).replace("T", " ") ?? ""}</td>
                  <td>{t.revision ?? ""}</td>
                  <td>{t.translatedRevision === undefined ? "" : t.translatedRevision === t.revision ? "up to date" : `${t.translatedRevision} (behind)`}</td>
                </tr>
              ))}
            </Table>
          )
        }
      </Loaded>
    </main>
  );
}
