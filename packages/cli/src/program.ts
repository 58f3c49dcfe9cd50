/**
 * `meshplane`: the command tree. Each command's code is loaded only when it runs, so `--help` reads
 * little more than this file.
 */
import { Argument, Command, Option } from "commander";
import { VERSION } from "./version";

/** Runs `load()`'s command with the parsed arguments; errors become readable lines and an exit code. */
function run<A extends unknown[]>(load: () => Promise<(...args: A) => Promise<number | void>>) {
  return async (...args: A) => {
    const { reportError, streamsOf } = await import("./runtime");
    try {
      const code = await (await load())(...args);
      process.exitCode = code ?? 0;
    } catch (error) {
      process.exitCode = reportError(streamsOf(), error);
    }
  };
}

/** `-f` (repeatable) and `-R`: where apply and delete read documents. */
const withFiles = (command: Command) =>
  command.option("-f, --filename <path...>", "a file, a directory, or - for standard input", []).option("-R, --recursive", "read directories recursively");

/** `--prune`, `-l` and `--prune-allowlist`: what apply deletes and diff shows removed. */
const withPrune = (command: Command, verb: string) =>
  command
    .option("--prune", `${verb} the resources that carry the -l labels and are no longer in the files (never one authored in a cluster)`)
    .option("-l, --selector <selector>", "with --prune, required: the labels the files' resources carry, e.g. team=shop")
    .option("--prune-allowlist <kind...>", "with --prune: only these kinds (default: virtualmeshes, trafficpolicies and accesspolicies)");

const output = () => new Option("-o, --output <format>", "table, wide, yaml, json or name").choices(["table", "wide", "yaml", "json", "name"]).default("table");

/** What `cluster register` and `cluster bootstrap-token` take for `--install`. */
const installOptions = (c: Command): Command =>
  c
    .option("--install", "run helm against the current kube context and wait until the agent has registered and reported discovery")
    .option("--kube-context <name>", "with --install: the kube context (default: the kubeconfig's current one)")
    .option("--kubeconfig <path>", "with --install: the kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
    .option("--namespace <name>", "with --install: the agent's namespace", "meshplane-system")
    .option("--values <file...>", "with --install: more helm values files (image, resources, sync intervals)", [])
    .option("--helm <path>", "with --install: the helm binary (default: $MESHPLANE_HELM, else helm on PATH)")
    .option("--chart <dir>", "with --install: the agent chart (default: the one shipped with this CLI)")
    .option("--timeout <seconds>", "with --install: how long to wait for the agent", "300");

export function program(): Command {
  const cli = new Command("meshplane")
    .description("Manage service meshes across clusters with meshplane: register clusters, apply policies, see what they do.")
    .version(VERSION, "-v, --version")
    .option("--context <name>", "the context to use (default: the current one; MESHPLANE_CONTEXT)")
    .showHelpAfterError("(add --help for usage)")
    .addHelpText(
      "after",
      `
Start here:
  meshplane login --url http://127.0.0.1:8080        the token is read from a prompt or stdin
  meshplane cluster register cluster-1               prints the helm line for the cluster's agent
  meshplane apply -f policies/ --dry-run             what each cluster would get
  meshplane apply -f policies/                        store them
  meshplane diff -f policies/                         what applying them would change (exit 1 when something)
  meshplane get trafficpolicies                       see their state
  meshplane top destinations                          what each destination is doing now

Environment: MESHPLANE_URL and MESHPLANE_TOKEN (CI, no config file), MESHPLANE_CONTEXT, MESHPLANE_CONFIG, NO_COLOR.`,
    );

  cli
    .command("login")
    .description("Save a control plane URL and token as a context (the token is read from stdin or a prompt, never an argument)")
    .requiredOption("--url <url>", "the control plane, e.g. https://meshplane.example.com")
    .option("--name <context>", "the context's name (default: the URL's host)")
    .option("--token-stdin", "read the token from standard input (for scripts)")
    .addHelpText(
      "after",
      '\nExamples:\n  meshplane login --url http://127.0.0.1:8080\n  echo "$TOKEN" | meshplane login --url https://mp.example.com --token-stdin --name prod',
    )
    .action(run(async () => (await import("./commands/context")).login));

  const context = cli.command("context").description("List and switch between saved contexts");
  context
    .command("list")
    .description("The saved contexts; * marks the current one")
    .addOption(output())
    .action(run(async () => (await import("./commands/context")).list));
  context
    .command("use <name>")
    .description("Make a context the current one")
    .action(run(async () => (await import("./commands/context")).use));
  context
    .command("delete <name>")
    .description("Forget a context and its token")
    .action(run(async () => (await import("./commands/context")).remove));

  cli
    .command("get <kind> [name]")
    .description("List or show resources: virtualmeshes (vm), trafficpolicies (tp), accesspolicies (ap), meshes, workloads (wl), destinations (dest), clusters")
    .option("-l, --selector <selector>", "label selector, e.g. team=payments,tier!=web")
    .option("--cluster <name>", "discovered kinds: only this cluster's")
    .option("--namespace <name>", "discovered kinds: only this namespace's")
    .option("--mesh <name>", "discovered kinds: only this mesh's")
    .addOption(output())
    .addHelpText(
      "after",
      "\nExamples:\n  meshplane get tp\n  meshplane get tp retries -o yaml\n  meshplane get dest --cluster cluster-1 -o wide\n  meshplane get ap -l team=payments -o name",
    )
    .action(run(async () => (await import("./commands/resources")).get));

  withPrune(
    withFiles(cli.command("apply").description("Create or update resources from YAML or JSON files (many documents each)")).option(
      "--dry-run",
      "show what each cluster would get and each policy's predicted state, and what --prune would delete; store nothing",
    ),
    "after applying, delete",
  )
    .option(
      "--routing <mesh=api...>",
      "with --dry-run: plan MESH with output API ISTIO or GATEWAY_API instead of its VirtualMesh's (repeatable; -f may then be left out)",
      [],
    )
    .option("--wait", "wait until each resource is translated and applied by every cluster it reaches; exit 1 naming any INVALID or FAILED")
    .option("--timeout <seconds>", "how long --wait waits", "300")
    .addOption(new Option("-o, --output <format>", "table or json").choices(["table", "json"]).default("table"))
    .addHelpText(
      "after",
      "\nExamples:\n  meshplane apply -f mesh.yaml\n  meshplane apply -R -f policies/ --dry-run\n  meshplane apply --dry-run --routing istiod-istio--system-cluster-1=GATEWAY_API   (what switching that mesh to HTTPRoutes would change)\n  meshplane apply -f policies/ --wait --timeout 120   (CI: exit 0 only when applied everywhere)\n  cat tp.yaml | meshplane apply -f -\n  meshplane apply -f policies/ --prune -l team=shop   (CI: also delete team=shop resources whose files are gone)",
    )
    .action(run(async () => (await import("./commands/resources")).apply));

  withPrune(
    withFiles(
      cli
        .command("diff")
        .description(
          "Show what apply would change, as kubectl diff does: a unified diff per resource between what is stored (live) and what the files would store (merged)",
        ),
    ),
    "also show as removed",
  )
    .addHelpText(
      "after",
      "\nExit status: 0 when nothing would change, 1 when something would, 2 on an error (as kubectl diff: above 1).\n\nExamples:\n  meshplane diff -f policies/\n  meshplane diff -R -f policies/ --prune -l team=shop   (what apply --prune -l team=shop would change)",
    )
    .action(run(async () => (await import("./commands/diff")).diff));

  withFiles(cli.command("delete [kind] [name]").description("Delete a resource by kind and name, or every resource a file names (-f)"))
    .option("--ignore-not-found", "a resource that does not exist is not an error")
    .addHelpText("after", "\nExamples:\n  meshplane delete tp retries\n  meshplane delete -f policies/")
    .action(run(async () => (await import("./commands/resources")).remove));

  cli
    .command("edit <kind> <name>")
    .description("Edit a VirtualMesh, TrafficPolicy or AccessPolicy in $VISUAL/$EDITOR; replaced only if nobody changed it meanwhile (If-Match)")
    .addHelpText("after", "\nExamples:\n  meshplane edit tp reviews-timeout\n  EDITOR='code --wait' meshplane edit vm global")
    .action(run(async () => (await import("./commands/edit")).edit));

  const cluster = cli.command("cluster").description("Register clusters and see their agents");
  installOptions(
    cluster
      .command("register <name>")
      .description(
        "Register a cluster: prints the helm line that installs its agent with a one-time bootstrap token, or with --install runs it and waits for the agent",
      )
      .option("--label <key=value...>", "labels of the cluster", [])
      .addOption(new Option("-o, --output <format>", "text or json (without --install)").choices(["text", "json"]).default("text")),
  )
    .addHelpText(
      "after",
      "\nExamples:\n  meshplane cluster register cluster-1\n  meshplane cluster register cluster-1 --install\n  meshplane cluster register cluster-2 --install --kube-context west --values agent-values.yaml --label region=eu",
    )
    .action(run(async () => (await import("./commands/clusters")).register));
  cluster
    .command("list")
    .description("Every cluster: agent state, last seen, applied generation")
    .addOption(output())
    .action(run(async () => (await import("./commands/clusters")).list));
  cluster
    .command("describe <name>")
    .description("One cluster: its agent, its snapshot and its certificates")
    .addOption(new Option("-o, --output <format>", "text, yaml or json").choices(["text", "yaml", "json"]).default("text"))
    .action(run(async () => (await import("./commands/clusters")).describe));
  cluster
    .command("deregister <name>")
    .description("Remove a cluster, its discovery and its agent's credential")
    .action(run(async () => (await import("./commands/clusters")).deregister));
  installOptions(
    cluster
      .command("bootstrap-token <name>")
      .description("A new one-time bootstrap token for a cluster whose agent must register again; with --install, reinstalls the agent with it")
      .addOption(new Option("-o, --output <format>", "text or json (without --install)").choices(["text", "json"]).default("text")),
  ).action(run(async () => (await import("./commands/clusters")).bootstrapToken));
  cluster
    .command("grant <name>")
    .description("Set what a cluster's agent may author from its custom resources: the kinds, and the clusters they may select (admin)")
    .option("--kinds <kinds>", "comma-separated: VirtualMesh, TrafficPolicy, AccessPolicy (or vm, tp, ap), or none (default: TrafficPolicy,AccessPolicy)")
    .option("--clusters <clusters>", "comma-separated cluster names, or * for every cluster of the tenant (default: the cluster itself)")
    .option("--default", "put the grant back to the default (without --kinds or --clusters)")
    .addOption(new Option("-o, --output <format>", "text, yaml or json").choices(["text", "yaml", "json"]).default("text"))
    .addHelpText(
      "after",
      "\nExamples:\n  meshplane cluster grant platform --kinds vm,tp,ap --clusters '*'\n  meshplane cluster grant east --clusters east,west\n  meshplane cluster grant east --kinds none   (authoring off)\n  meshplane cluster grant east --default\n\nThe grant model: docs/gitops.md#grants",
    )
    .action(run(async () => (await import("./commands/clusters")).grant));

  const token = cli.command("token").description("API tokens of this tenant (admin)");
  token
    .command("create <name>")
    .description("Create a token; the secret is shown once")
    .addOption(new Option("--role <role>", "admin, editor or viewer").choices(["admin", "editor", "viewer"]).makeOptionMandatory())
    .option("--ttl-days <days>", "expire after this many days (1–3650)")
    .addOption(new Option("-o, --output <format>", "text or json").choices(["text", "json"]).default("text"))
    .action(run(async () => (await import("./commands/admin")).createToken));
  token
    .command("list")
    .description("The tenant's tokens (never their secrets)")
    .addOption(output())
    .action(run(async () => (await import("./commands/admin")).listTokens));
  token
    .command("revoke <id>")
    .description("Revoke a token (not the last admin token)")
    .action(run(async () => (await import("./commands/admin")).revokeToken));

  const tenant = cli.command("tenant").description("Tenants (operator credential)");
  tenant
    .command("create <name>")
    .description("Create a tenant; its first admin token is shown once")
    .addOption(new Option("-o, --output <format>", "text or json").choices(["text", "json"]).default("text"))
    .action(run(async () => (await import("./commands/admin")).createTenant));
  tenant
    .command("list")
    .description("Every tenant")
    .addOption(output())
    .action(run(async () => (await import("./commands/admin")).listTenants));
  tenant
    .command("delete <id>")
    .description("Delete a tenant and everything in it")
    .action(run(async () => (await import("./commands/admin")).deleteTenant));

  cli
    .command("describe <what> <name>")
    .description(
      "Explain one object: a destination (dest) — the policies that apply in acceptance order, their conflicts, who may call it, where it is federated, its generated objects, its golden signals and the changes that hurt it; a policy (tp, ap, vm, or `policy`) — its state per destination and cluster and its objects; a workload (wl) — its data plane and what applies to its outbound calls; a mesh — its data plane: ztunnel, waypoints and what each serves",
    )
    .option("--cluster <name>", "for destinations, workloads and meshes: the cluster, when the name is in several")
    .option("--window <duration>", "for destinations: how far back its signals go, in whole minutes (15m, 1h, 7d; at most 30d)", "15m")
    .addOption(new Option("-o, --output <format>", "text, yaml or json").choices(["text", "yaml", "json"]).default("text"))
    .addHelpText(
      "after",
      "\nExamples:\n  meshplane describe dest reviews-bookinfo-cluster-1\n  meshplane describe tp reviews-timeout\n  meshplane describe policy reviews-timeout\n  meshplane describe wl productpage--v1-bookinfo-cluster-1-deployment\n  meshplane describe mesh istiod-istio--system-cluster-1",
    )
    .action(run(async () => (await import("./commands/describe")).describe));

  const top = cli
    .command("top")
    .description("The tenant's traffic over a window, busiest first: each destination's or each edge's rate, error ratio and latency");
  const topCommand = (name: string, alias: string, description: string, examples: string) =>
    top
      .command(name)
      .alias(alias)
      .description(description)
      .option("--window <duration>", "how far back, in whole minutes: 5m, 1h … 24h", "5m")
      .addOption(new Option("--sort <by>", "rate, errors (error ratio), p99 or name").choices(["rate", "errors", "p99", "name"]).default("rate"))
      .option("--cluster <name>", "only this cluster's")
      .option("--namespace <name>", "only this namespace's")
      .option("--mesh <name>", "only this mesh's")
      .addOption(new Option("-o, --output <format>", "table, wide, yaml or json").choices(["table", "wide", "yaml", "json"]).default("table"))
      .addHelpText("after", `\nExamples:\n${examples}`);
  topCommand(
    "destinations",
    "dest",
    "Each destination's traffic in from every caller: requests per second, error ratio, p50 and p99, callers",
    "  meshplane top destinations\n  meshplane top dest --sort errors --window 15m\n  meshplane top dest --cluster cluster-1 -o wide",
  ).action(run(async () => (await import("./commands/top")).destinations));
  topCommand(
    "edges",
    "edge",
    "Each caller → destination pair: requests per second, error ratio, p50 and p99, and whether it crosses clusters",
    "  meshplane top edges\n  meshplane top edges --sort p99 --namespace bookinfo\n  meshplane top edges -o json | jq '.items[] | select(.crossCluster)'",
  ).action(run(async () => (await import("./commands/top")).edges));

  cli
    .command("check")
    .description(
      "Is everything working? The control plane answers, and every cluster's agent is connected, on the latest generation, with no apply failures and certificates far from expiry",
    )
    .option("--stale-after <seconds>", "an agent not seen for longer is a problem (the control plane records a poll at most every 5 minutes)", "600")
    .option("--certificate-days <days>", "an intermediate CA expiring sooner is a problem", "7")
    .addOption(new Option("-o, --output <format>", "text or json").choices(["text", "json"]).default("text"))
    .addHelpText(
      "after",
      "\nExit status: 0 when every check passes, 1 otherwise (for CI).\n\nExamples:\n  meshplane check\n  meshplane check -o json | jq '.checks[] | select(.ok | not)'",
    )
    .action(run(async () => (await import("./commands/check")).check));

  cli
    .command("import")
    .description("Convert another management plane's resources into meshplane documents")
    .command("gloo")
    .description(
      "Gloo Mesh v1 (networking.mesh.gloo.solo.io/v1) VirtualMesh, TrafficPolicy and AccessPolicy YAML → meshplane documents on stdout; every field not carried over, with why, on stderr",
    )
    .option("-f, --filename <path...>", "a file, or - for standard input", [])
    .option("--strict", "exit 1 when any field is not carried over")
    .addHelpText(
      "after",
      "\nExamples:\n  meshplane import gloo -f gloo-policies.yaml > meshplane.yaml\n  kubectl get trafficpolicies.networking.mesh.gloo.solo.io -A -o yaml | meshplane import gloo -f - | meshplane apply -f -\n\nThe field mapping: docs/import-gloo.md.",
    )
    .action(run(async () => (await import("./commands/import")).gloo));

  cli
    .command("completion")
    .description("Print a shell completion script: bash, zsh or fish")
    .addArgument(new Argument("<shell>", "bash, zsh or fish").choices(["bash", "zsh", "fish"]))
    .addHelpText(
      "after",
      "\nInstall:\n  meshplane completion bash > /etc/bash_completion.d/meshplane   (or: source <(meshplane completion bash) in ~/.bashrc)\n  source <(meshplane completion zsh)                               (in ~/.zshrc, after compinit)\n  meshplane completion fish > ~/.config/fish/completions/meshplane.fish",
    )
    .action(async (shell: "bash" | "zsh" | "fish") => {
      const { completionScript } = await import("./completion");
      process.stdout.write(completionScript(shell, program()));
    });

  return cli;
}

/** Parses the command line and runs the command it names. */
export async function main(argv: string[]): Promise<void> {
  try {
    await program().parseAsync(argv);
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    process.exitCode = 2;
  }
}
