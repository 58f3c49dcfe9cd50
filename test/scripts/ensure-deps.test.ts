import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

/**
 * scripts/ensure-deps.sh --java on a machine that lacks what the tests need, played with stand-ins
 * on a PATH that holds only them and the few system commands the script uses: `apt-get` records what
 * it was asked to install (and "installs" a Go), `go` answers as the Go version a case names. Nothing
 * is downloaded or installed.
 */
const repo = fileURLToPath(new URL("../..", import.meta.url));
const GO_VERSION = /^GO_VERSION=(\S+)$/m.exec(readFileSync(join(repo, "scripts/lab/versions.env"), "utf8"))?.[1] ?? "";

const SYSTEM = ["bash", "sed", "sort", "head", "find", "chmod", "ln", "mkdir", "rm", "cat", "dirname", "id", "cp", "java", "zsh", "fish", "lua5.4", "chromium"];

function which(cmd: string): string {
  const r = spawnSync("bash", ["-c", `command -v ${cmd}`], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd} is not on this machine's PATH`);
  return r.stdout.trim();
}

/** A stand-in `go` of version `version`; its toolchain download puts a Go of GO_VERSION under `mod`. */
function goStub(version: string, mod: string): string {
  return `#!/bin/bash
root="${mod}/golang.org/toolchain@v0.0.1-go${GO_VERSION}.linux-amd64"
fetch() {
  mkdir -p "$root/bin" "$root/pkg/tool/linux_amd64"
  printf '#!/bin/bash\\n[ "$1" = env ] && echo go${GO_VERSION} || echo "go version go${GO_VERSION} linux/amd64"\\n' >"$root/bin/go"
  cp "$root/bin/go" "$root/bin/gofmt"; cp "$root/bin/go" "$root/pkg/tool/linux_amd64/compile"
  chmod a-x "$root/bin/go" "$root/bin/gofmt" "$root/pkg/tool/linux_amd64/compile"
}
echo "go $* GOTOOLCHAIN=\${GOTOOLCHAIN:-}" >>"${mod}/go.log"
case "$*" in
  "env GOVERSION") if [ "\${GOTOOLCHAIN:-}" = "go${GO_VERSION}" ]; then echo go${GO_VERSION}; else echo go${version}; fi ;;
  "env GOOS") echo linux ;;
  "env GOARCH") echo amd64 ;;
  "env GOROOT")
    # Go 1.21+ switch toolchains (and set execute bits) themselves; older ones ignore GOTOOLCHAIN.
    if [ "\${GOTOOLCHAIN:-}" = "go${GO_VERSION}" ] && [ "$(printf '%s\\n1.21\\n' ${version} | sort -V | head -n 1)" = 1.21 ]; then
      fetch; chmod a+x "$root/bin/go" "$root/bin/gofmt" "$root/pkg/tool/linux_amd64/compile"; echo "$root"
    else echo /usr/lib/go; fi ;;
  "mod download -json golang.org/toolchain@v0.0.1-go${GO_VERSION}.linux-amd64")
    fetch; printf '{\\n\\t"Path": "golang.org/toolchain",\\n\\t"Dir": "%s",\\n\\t"Sum": "h1:x"\\n}\\n' "$root" ;;
  *) echo "unexpected: go $*" >&2; exit 2 ;;
esac
`;
}

/** The interpreter itself, not a version manager's shim that needs its own PATH. */
const python3 = spawnSync(which("python3"), ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).stdout.trim();

interface Machine {
  /** The Go installed, if any. */
  go?: string;
  /** Whether apt-get exists (as root). */
  apt?: boolean;
  /** Whether python3 can make a venv. */
  venv?: boolean;
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function run(machine: Machine) {
  const dir = mkdtempSync(join(tmpdir(), "ensure-deps-"));
  dirs.push(dir);
  const work = join(dir, "repo"),
    bin = join(dir, "bin"),
    mod = join(dir, "mod"),
    cache = join(dir, "cache");
  mkdirSync(join(work, "scripts/lab"), { recursive: true });
  mkdirSync(join(work, "node_modules"), { recursive: true });
  mkdirSync(bin);
  mkdirSync(mod);
  copyFileSync(join(repo, "scripts/ensure-deps.sh"), join(work, "scripts/ensure-deps.sh"));
  copyFileSync(join(repo, "scripts/lab/versions.env"), join(work, "scripts/lab/versions.env"));
  // npm's dependencies are in place: the lock file is not newer than node_modules' copy of it.
  writeFileSync(join(work, "package-lock.json"), "{}");
  writeFileSync(join(work, "node_modules/.package-lock.json"), "{}");
  for (const cmd of SYSTEM) symlinkSync(which(cmd), join(bin, cmd));
  const script = (name: string, body: string) => {
    writeFileSync(join(bin, name), body);
    chmodSync(join(bin, name), 0o755);
  };
  if (machine.venv === false)
    script("python3", `#!/bin/bash\ncase "$*" in *ensurepip*) echo "No module named ensurepip" >&2; exit 1;; esac\nexec ${python3} "$@"\n`);
  else symlinkSync(python3, join(bin, "python3"));
  if (machine.go) script("go", goStub(machine.go, mod));
  if (machine.apt) {
    // "Installs" golang-go as Debian 12 does: Go 1.19.
    script(
      "apt-get",
      `#!/bin/bash\necho "apt-get $*" >>"${dir}/apt.log"\ncase "$*" in *golang-go*) cat >"${bin}/go" <<'GO'\n${goStub("1.19.8", mod)}GO\nchmod +x "${bin}/go";; esac\n`,
    );
  }
  const r = spawnSync(join(bin, "bash"), [join(work, "scripts/ensure-deps.sh"), "--java"], {
    encoding: "utf8",
    env: { PATH: bin, HOME: dir, MESHPLANE_CACHE: cache },
  });
  const link = join(cache, "go/bin/go");
  return {
    ...r,
    apt: existsSync(join(dir, "apt.log")) ? readFileSync(join(dir, "apt.log"), "utf8") : "",
    goLog: existsSync(join(mod, "go.log")) ? readFileSync(join(mod, "go.log"), "utf8") : "",
    link: existsSync(link) ? readlinkSync(link) : undefined,
    toolchain: join(mod, `golang.org/toolchain@v0.0.1-go${GO_VERSION}.linux-amd64`),
  };
}

const executable = (path: string) => (statSync(path).mode & 0o111) === 0o111;

describe("scripts/ensure-deps.sh --java", () => {
  it("reads the Go version the builds need from scripts/lab/versions.env", () => {
    expect(GO_VERSION).toMatch(/^1\.\d+\.\d+$/);
  });

  it("installs Debian's golang-go when there is no Go, then fetches the newer toolchain with it", () => {
    const r = run({ apt: true });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.apt).toMatch(/install .*golang-go/);
    expect(r.stdout).toContain("installing golang-go");
    // Debian 12's Go 1.19 cannot switch toolchains: the module is downloaded and made executable.
    expect(r.goLog).toContain(`go mod download -json golang.org/toolchain@v0.0.1-go${GO_VERSION}.linux-amd64`);
    expect(r.link).toBe(join(r.toolchain, "bin/go"));
    expect(executable(join(r.toolchain, "bin/go"))).toBe(true);
    expect(executable(join(r.toolchain, "pkg/tool/linux_amd64/compile"))).toBe(true);
    expect(r.stdout).toContain(`go version go${GO_VERSION}`);
  });

  it("lets a Go of 1.21 or later fetch the toolchain itself (GOTOOLCHAIN)", () => {
    const r = run({ go: "1.22.2", apt: true });
    expect(r.status).toBe(0);
    expect(r.apt).toBe("");
    expect(r.goLog).toContain(`go env GOROOT GOTOOLCHAIN=go${GO_VERSION}`);
    expect(r.goLog).not.toContain("mod download");
    expect(r.link).toBe(join(r.toolchain, "bin/go"));
    expect(r.stdout).toContain(`Go 1.22.2 is older than the go ${GO_VERSION} the builds need`);
  });

  it("uses an installed Go that is recent enough as it is", () => {
    const r = run({ go: `${GO_VERSION}`, apt: true });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.link).toBeUndefined();
  });

  it("installs python3-venv when python3 cannot make a venv", () => {
    const r = run({ go: `${GO_VERSION}`, apt: true, venv: false });
    expect(r.status).toBe(0);
    expect(r.apt).toMatch(/install .*python3-venv/);
  });

  it("stops with one line naming the packages when it cannot install them", () => {
    const r = run({ venv: false });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^install golang-go python3-venv \(Debian\/Ubuntu packages/)]);
  });
});
