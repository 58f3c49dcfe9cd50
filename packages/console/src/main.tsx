/**
 * The console: one page app over the control plane's own API, on the API's origin. Every page reads
 * the API with the signed-in credential; nothing else is contacted.
 */
import { render } from "preact";
import { lazy, Suspense } from "preact/compat";
import { useEffect, useState } from "preact/hooks";
import { session } from "./session";
import { type Route, href, useRoute } from "./router";
import { SignIn } from "./pages/sign-in";
import { Overview } from "./pages/overview";
import { Destinations } from "./pages/destinations";
import { Destination } from "./pages/destination";
import { Workloads } from "./pages/workloads";
import { Policies } from "./pages/policies";
import { Policy } from "./pages/policy";
import { Tenants } from "./pages/tenants";
import { Loading } from "./ui";
import { ThemeToggle } from "./theme";

// The graph layouts and the code editor are the heavy parts: each loads with the first page that needs it.
const Topology = lazy(() => import("./pages/topology").then((m) => ({ default: m.Topology })));
const Graph = lazy(() => import("./pages/graph").then((m) => ({ default: m.Graph })));
const Editor = lazy(() => import("./pages/editor").then((m) => ({ default: m.Editor })));

function useSession(): ReturnType<typeof session.role> {
  const [role, setRole] = useState(session.role());
  useEffect(() => session.subscribe(() => setRole(session.role())), []);
  return role;
}

const TENANT_NAV = [
  ["overview", "Overview", href([])],
  ["topology", "Topology", href(["topology"])],
  ["graph", "Graph", href(["graph"])],
  ["destinations", "Destinations", href(["destinations"])],
  ["workloads", "Workloads", href(["workloads"])],
  ["policies", "Policies", href(["policies"])],
] as const;

function current(route: Route): string {
  if (route.page === "destination") return "destinations";
  if (route.page === "policy" || route.page === "edit") return "policies";
  return route.page;
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case "overview":
      return <Overview />;
    case "topology":
      return <Topology />;
    case "graph":
      return <Graph query={route.query} />;
    case "destinations":
      return <Destinations query={route.query} />;
    case "workloads":
      return <Workloads query={route.query} />;
    case "destination":
      return <Destination name={route.name} {...(route.cluster ? { cluster: route.cluster } : {})} {...(route.window ? { window: route.window } : {})} />;
    case "policies":
      return <Policies query={route.query} />;
    case "policy":
      return <Policy collection={route.collection} name={route.name} />;
    case "edit":
      return <Editor {...(route.collection ? { collection: route.collection } : {})} {...(route.name ? { name: route.name } : {})} />;
    case "tenants":
      return <Tenants />;
    default:
      return (
        <main id="main">
          <h1>Not found</h1>
          <p>
            Nothing lives at <code>{route.path}</code>. <a href={href([])}>Go to the overview</a>.
          </p>
        </main>
      );
  }
}

function App() {
  const role = useSession();
  const route = useRoute();
  if (!role) return <SignIn />;
  const nav = role === "operator" ? ([["tenants", "Tenants", href(["tenants"])]] as const) : TENANT_NAV;
  const page: Route = role === "operator" ? { page: "tenants" } : route;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">meshplane</span>
        <nav aria-label="Main">
          <ul>
            {nav.map(([id, label, target]) => (
              <li key={id}>
                <a href={target} aria-current={current(page) === id ? "page" : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">{role === "operator" ? "operator" : "tenant"}</span>
        <ThemeToggle />
        <button type="button" class="link" onClick={() => session.signOut()}>
          Sign out
        </button>
      </header>
      <Suspense fallback={<Loading what="the page" />}>
        <Page route={page} />
      </Suspense>
    </>
  );
}

render(<App />, document.getElementById("app") as HTMLElement);
