/** `check`: is everything working? An exit code for CI and a line per check for people. */
import type { Command } from "commander";
import { ApiError } from "../client";
import { UsageError, seconds } from "../config";
import { type ClusterView, certificateDays, healthOfAll, listClusters, problemsOf } from "../health";
import { colours, formatData } from "../output";
import { clientFor, optionsOf, streamsOf } from "../runtime";

interface Check {
  name: string;
  ok: boolean;
  problems: string[];
}

export async function check(_o: unknown, command: Command): Promise<number> {
  const o = optionsOf<{ output: string; staleAfter: string; certificateDays: string }>(command);
  const staleAfterS = seconds("--stale-after", o.staleAfter);
  const certificateWarnDays = Number(o.certificateDays);
  if (!Number.isFinite(certificateWarnDays) || certificateWarnDays < 0)
    throw new UsageError(`--certificate-days must be a number of days, not "${o.certificateDays}"`);
  const client = clientFor(command);
  const checks: Check[] = [];
  let clusters: ClusterView[] | undefined;
  try {
    clusters = await listClusters(client);
    checks.push({ name: `control plane ${client.url}: reachable and the credential accepted`, ok: true, problems: [] });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    checks.push({ name: `control plane ${client.url}`, ok: false, problems: [error.message] });
  }
  if (clusters !== undefined) {
    if (clusters.length === 0) checks.push({ name: "clusters", ok: false, problems: ["none registered: `meshplane cluster register NAME`"] });
    const now = new Date();
    for (const h of await healthOfAll(client, clusters)) {
      const problems = problemsOf(h, now, { staleAfterS, certificateWarnDays });
      const days = certificateDays(h.cluster, now);
      checks.push({
        name: `cluster ${h.cluster.name}: agent connected, generation ${h.snapshot.generation} applied, no failures${days === undefined ? "" : `, certificates valid ${days} more days`}`,
        ok: problems.length === 0,
        problems,
      });
    }
  }
  const ok = checks.every((c) => c.ok);
  const streams = streamsOf();
  if (o.output === "json") streams.out.write(formatData({ ok, checks }, "json"));
  else {
    const c = colours(streams.out, streams.env);
    for (const one of checks) {
      streams.out.write(`${one.ok ? c.green("✔") : c.red("✘")} ${one.name.replace(/: .*$/, one.ok ? "$&" : "")}\n`);
      for (const p of one.problems) streams.out.write(`    ${p}\n`);
    }
    streams.out.write(ok ? c.green("all checks passed\n") : c.red(`${checks.filter((x) => !x.ok).length} check(s) failed\n`));
  }
  return ok ? 0 : 1;
}
