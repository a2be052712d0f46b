#!/usr/bin/env python3
"""The openurld benchmark suite: one command, floors and peers in the same run.

    bench/run            # full run, four to six minutes on 2 cores (the counted rows run under valgrind)
    bench/run --quick    # smoke run, under 30 seconds (CI runs this)

Starts a private dbus-daemon and a temporary XDG tree whose "browser" is a
recorder, measures everything below, prints one table and writes
bench/results.json and the table in bench/README.md. Kills only the processes it started,
by PID. Every figure comes from this run; ratios are against the floor
measured in the same run. Latency rows are the median (p50) and p99 of
sequential calls; "pinned" rows put the server and the client on different
cores with taskset, "free" rows let the scheduler choose.
"""
import json, os, random, re, resource, shutil, signal, statistics, subprocess, sys, tempfile, time
from typing import NamedTuple

QUICK = "--quick" in sys.argv
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CALLS = 300 if QUICK else 4000
# Alternating rounds of floor and daemon measurements (see main).
ROUNDS = 2 if QUICK else 5
# The latency rows against the C floors take many short rounds instead of
# a few long ones: the machine drifts over seconds, and a shorter round
# measures floor and subject closer together. The floor's twin (the A/A
# test below) measured a standard deviation of its rounds' ratios of 0.133
# at 4 000 calls a round, 0.092 at 1 000 and 0.082 at 250 (ten, forty and
# 160 rounds). Forty rounds, not twenty: in eighty rounds of the forwarded
# call against sd-bus's relay (2026-12-06), the rounds' ratios had a
# standard deviation of 0.13 about a median of 1.06, and of the medians of
# 20 rounds drawn from them 9 % read over 1.1 (3 % of those of 40). A run's
# verdict on a row that close to its target was a draw; each row's note now
# says how far its median moves when its rounds are drawn again.
LATENCY_ROUNDS, LATENCY_CALLS = (2, 300) if QUICK else (40, 1000)
# The 16-client throughputs against the C floors keep rounds of 4 000 calls
# (each round starts 16 client processes, which a shorter one would mostly
# measure) but take twenty-five of them: in five, the twin's rounds read
# 0.82-1.36 and the forwarded target 0.85-0.99 over four runs; in fifteen,
# the forwarded target read 0.87-0.96 over five.
THROUGHPUT_ROUNDS = 2 if QUICK else 25
# The rows that start a daemon for each subject of each round (the
# fallback's lookup on two trees, files on two MIME databases) take thirty
# rounds of 1 000 calls: a round's ratio spreads ±25 % with the two daemons'
# starts (placement in memory and caches), which more calls a round do not
# average out and more rounds do. In five rounds of 4 000, the row of files
# with contents rules read 1.00-1.15 over three runs of the same build; in
# fifteen, the 300-file tree read 1.00-1.11 over five runs, its rounds'
# ratios 0.71-1.36 in one: thirty now.
DAEMON_ROUNDS, DAEMON_CALLS = (2, 300) if QUICK else (30, 1000)
# Launches through each way to the app, in rounds of five alternating with
# the floor's: one takes about 3 ms, and 25 of each left the GIO/portal row
# (≤ 1.0) reading 0.88-1.05 over five runs of one build.
LAUNCHES, LAUNCH_ROUNDS = (5, 1) if QUICK else (100, 20)
# Starts of the daemon taken for the start-up row alone (see there).
STARTS = 2 if QUICK else 21
started = []  # PIDs we started, and only those are killed


def build_as_shipped(products):
    """Builds `products` as bench/run and the packages do (scripts/release-flags),
    then the front: for the scripts that load this file (bench/profile,
    bench/symbol-order); bench/run itself builds in its shell wrapper."""
    subprocess.run([f"{ROOT}/scripts/ensure-deps", "bench"], check=True, stdout=sys.stderr)
    flags = subprocess.check_output([f"{ROOT}/scripts/release-flags"], text=True).split()
    for product in products:
        subprocess.run(["swift", "build", *flags, "--product", product], cwd=ROOT, check=True, stdout=sys.stderr)
    subprocess.run([f"{ROOT}/scripts/build-front", subprocess.check_output(
        ["swift", "build", *flags, "--show-bin-path"], cwd=ROOT, text=True).strip()], check=True, stdout=sys.stderr)


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def start(cmd, env=None, wait_ready=True, stderr=subprocess.DEVNULL, cpu=None):
    if cpu is not None and shutil.which("taskset"):
        cmd = ["taskset", "-c", str(cpu)] + cmd
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=stderr, text=True)
    started.append(p)
    if wait_ready:
        line = p.stdout.readline()
        if line.strip() != "ready":
            raise SystemExit(f"bench: {cmd[0]} did not start: {line!r}")
    return p


def stop(p):
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    if p in started:
        started.remove(p)


def cleanup():
    for p in list(started):
        stop(p)


class Env:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="openurld-bench.")
        d = self.dir
        for sub in ["config", "etc-xdg", "data/applications", "bin", "home", "small/applications"] + [f"share{i}/applications" for i in (1, 2, 3)]:
            os.makedirs(f"{d}/{sub}")
        self.busbench = f"{d}/bin/busbench"
        sh(["gcc", "-O2", "-o", self.busbench, f"{ROOT}/bench/c/busbench.c"] +
           subprocess.check_output(["pkg-config", "--cflags", "--libs", "dbus-1"], text=True).split())
        # The same server and relay on sd-bus (bench/c/sdbench.c): each
        # target is held against the faster of the two libraries' floors.
        self.sdbench = f"{d}/bin/sdbench"
        sh(["gcc", "-O2", "-o", self.sdbench, f"{ROOT}/bench/c/sdbench.c"] +
           subprocess.check_output(["pkg-config", "--cflags", "--libs", "libsystemd"], text=True).split())
        # The smallest Swift program making openurl's call, built as openurl is.
        self.swift_client = f"{d}/bin/swift-client"
        cflags = subprocess.check_output(["pkg-config", "--cflags", "dbus-1"], text=True).split()
        sh(["swiftc", "-O", "-static-stdlib", "-I", f"{ROOT}/Sources/CDBus"] + [x for f in cflags for x in ("-Xcc", f)] +
           ["-module-cache-path", f"{d}/module-cache", f"{ROOT}/bench/swift/client.swift", "-o", self.swift_client])
        self.log = f"{d}/recorded"
        browser = ("[Desktop Entry]\nType=Application\nName=Browser\n"
                   f"Exec={self.busbench} record {self.log} %u\n"
                   "MimeType=x-scheme-handler/http;x-scheme-handler/https;text/html;\n")
        # A realistic desktop: three data directories of 100 applications
        # each (with their mimeinfo.cache), the browser among them, and a
        # user mimeapps.list of twenty defaults.
        types = [f"application/x-bench-{k}" for k in range(40)] + ["text/plain", "image/png", "audio/ogg", "video/mp4"]
        for i in (1, 2, 3):
            for j in range(100):
                with open(f"{d}/share{i}/applications/app-{i}-{j}.desktop", "w") as f:
                    f.write(f"[Desktop Entry]\nType=Application\nName=App {i}-{j}\nExec=/bin/true %U\n"
                            f"MimeType={types[(i * 100 + j) % len(types)]};{types[(j * 7) % len(types)]};\n"
                            f"Categories=Utility;\nComment=An application among three hundred\n")
        with open(f"{d}/share2/applications/browser.desktop", "w") as f:
            f.write(browser)
        with open(f"{d}/config/mimeapps.list", "w") as f:
            f.write("[Default Applications]\n" + "".join(f"{types[k]}=app-{k % 3 + 1}-{k}.desktop\n" for k in range(19))
                    + "x-scheme-handler/https=browser.desktop\n")
        # A one-application tree, for the fallback's cost against the realistic one.
        with open(f"{d}/small/applications/browser.desktop", "w") as f:
            f.write(browser)
        # The machine's MIME database twice: names only (globs, aliases,
        # parents), and names with contents rules (magic); and two files that
        # no application of the tree opens, so each OpenURL measures typing
        # and lookup, not a launch: a PDF named so, and a PDF saved without a name's help.
        for variant, names in (("mime-names", ["globs2", "aliases", "subclasses"]), ("mime-all", ["globs2", "aliases", "subclasses", "magic"])):
            os.makedirs(f"{d}/{variant}/mime")
            for name in names:
                shutil.copy(f"/usr/share/mime/{name}", f"{d}/{variant}/mime/{name}")
        pdf = b"%PDF-1.7\n%\xe2\xe3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n" + b"0" * 4096
        for name in ("paper.pdf", "download"):
            with open(f"{d}/home/{name}", "wb") as f:
                f.write(pdf)
        # As on a real system: GLib does not see the entries without their cache.
        for directory in [f"{d}/share{i}/applications" for i in (1, 2, 3)] + [f"{d}/small/applications", f"{d}/data/applications"]:
            sh(["update-desktop-database", directory])
        with open(f"{d}/bus.conf", "w") as f:
            f.write(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path={d}/bus</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
<limit name="max_replies_per_connection">100000</limit><limit name="max_match_rules_per_connection">100000</limit>
<limit name="max_incoming_bytes">1000000000</limit><limit name="max_outgoing_bytes">1000000000</limit>
</busconfig>""")
        self.bus_process = start(["dbus-daemon", f"--config-file={d}/bus.conf", "--nofork", "--print-address=1"],
                                 wait_ready=False)
        self.address = self.bus_process.stdout.readline().strip()
        self.env = {
            "HOME": f"{d}/home", "XDG_CONFIG_HOME": f"{d}/config", "XDG_CONFIG_DIRS": f"{d}/etc-xdg",
            "XDG_DATA_HOME": f"{d}/data", "XDG_DATA_DIRS": f"{d}/share1:{d}/share2:{d}/share3", "PATH": f"{d}/bin:/usr/bin:/bin",
            "DBUS_SESSION_BUS_ADDRESS": self.address, "LANG": "C.UTF-8", "GIO_USE_VFS": "local",
            # xdg-open only asks x-scheme-handler when it thinks there is a
            # display; nothing here connects to it (the recorder is not an X client).
            "DISPLAY": ":99",
        }
        flags = subprocess.check_output([f"{ROOT}/scripts/release-flags"], text=True).split()
        self.bin = subprocess.check_output(["swift", "build", *flags, "--show-bin-path"], cwd=ROOT, text=True).strip()
        # openurl as installed: the fast front (Embedded Swift), handing on to the full CLI (bench/run builds both).
        self.openurl = f"{self.bin}/front/bin/openurl"
        # Every start of the daemon on the desktop-sized tree, exec to name owned (through taskset when pinned).
        self.startups = []
        self.full_cli = f"{self.bin}/openurl"
        # The project's own D-Bus layer answering OpenURL with no walk (bench/DBusLayer).
        self.layer_floor = f"{self.bin}/dbus-layer-floor"
        # The C relay in Swift over libdbus alone (bench/SwiftRelay).
        self.swift_relay = f"{self.bin}/swift-relay"
        # sdbench's relay in Swift, with and without a task per call
        # (bench/swift/sd-relay.swift), optimised with the runtime linked
        # statically as the shipped Swift programs are; with swiftc here, so
        # that the package itself needs no libsystemd.
        self.sd_swift_relay = f"{d}/bin/sd-relay"
        sh(["swiftc", "-O", "-static-stdlib", "-I", f"{ROOT}/bench/swift/CSDBus", "-module-cache-path", f"{d}/module-cache",
            f"{ROOT}/bench/swift/sd-relay.swift", "-o", self.sd_swift_relay])

    def daemon(self, extra=(), cpu=None, small_tree=False, mime=None, wrap=()):
        """Starts the release openurld; returns (process, seconds from exec to owning the name).
        `mime`: a MIME database directory of the tree's (mime-names, mime-all) to add to the data directories.
        `wrap`: a command to run it under (valgrind); its start-up is then not recorded."""
        # The daemon as installed: the multi-call binary, run as openurld.
        cmd = list(wrap) + [f"{self.bin}/front/bin/openurld", "--address", self.address] + list(extra)
        if cpu is not None and shutil.which("taskset"):
            cmd = ["taskset", "-c", str(cpu)] + cmd
        env = dict(self.env, XDG_DATA_DIRS=f"{self.dir}/small") if small_tree else self.env
        if mime:
            env = dict(env, XDG_DATA_DIRS=env["XDG_DATA_DIRS"] + f":{self.dir}/{mime}")
        # The log goes to a file: a pipe nobody drains would fill and block the daemon.
        log = open(f"{self.dir}/openurld.log", "w")
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=log)
        started.append(p)
        deadline = t0 + (60 if wrap else 10)
        while time.monotonic() < deadline:  # "<6>openurld … serving …" is logged once the name is owned
            with open(f"{self.dir}/openurld.log") as f:
                if "serving" in f.read():
                    elapsed = time.monotonic() - t0
                    if not small_tree and not mime and not wrap:
                        self.startups.append(elapsed)
                    return p, elapsed
            time.sleep(0.0002)
        raise SystemExit("bench: openurld did not start")

    def client(self, dest, path, iface, method, arg, calls, cpu=None):
        cmd = [self.busbench, "client", self.address, dest, path, iface, method, arg, str(calls)]
        if cpu is not None and shutil.which("taskset"):
            cmd = ["taskset", "-c", str(cpu)] + cmd
        n, p50, p99, seconds = subprocess.check_output(cmd, text=True).split()
        return {"p50_us": float(p50), "p99_us": float(p99), "calls_per_s": int(n) / float(seconds)}

    def throughput(self, dest, path, iface, method, arg, processes, calls):
        cmd = [self.busbench, "client", self.address, dest, path, iface, method, arg, str(calls)]
        t0 = time.monotonic()
        ps = [subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) for _ in range(processes)]
        total = sum(int(p.communicate()[0].split()[0]) for p in ps)
        return total / (time.monotonic() - t0)


def thread_nices(pid):
    """The nice value of each of `pid`'s threads (field 19 of /proc/PID/task/TID/stat)."""
    nices = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except FileNotFoundError:  # the thread ended meanwhile
            continue
        nices.append(int(stat[stat.rindex(")") + 2:].split()[16]))
    return nices


def run_as_a_user():
    """Re-executes this script without CAP_SYS_NICE when it has it (run as root):
    every program measured is then scheduled as a user's would be. With it,
    libdispatch lowers the nice value of its worker threads by their work's
    quality of service (-2 for userInitiated, -4 for its overcommit pool),
    which a user's process may not do, and the Swift programs measured would
    run at a priority the C floors and the bus daemon do not have."""
    with open("/proc/self/status") as f:
        effective = int(next(l.split()[1] for l in f if l.startswith("CapEff:")), 16)
    CAP_SYS_NICE = 23
    if effective & (1 << CAP_SYS_NICE) and shutil.which("setpriv"):
        os.execvp("setpriv", ["setpriv", "--bounding-set=-sys_nice", sys.executable] + sys.argv)


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])


def in_turn(index, subjects):
    """Round `index`'s order of `subjects`: as given in even rounds,
    reversed in odd ones, so that going first (just after a daemon starts
    or reloads) favours no subject over the rounds."""
    return tuple(subjects) if index % 2 == 0 else tuple(reversed(subjects))


def in_rounds(subjects, bases):
    """A row's ratio from rounds that measured each subject with its base:
    the median of the rounds' own ratios, and how far they went and how far
    that median moves when the rounds are drawn again, for its note."""
    each = [s / b for s, b in zip(subjects, bases)]
    return statistics.median(each), f"rounds' ratios {min(each):.2f}–{max(each):.2f}; " + resampled(statistics.median, each)


def resampled(statistic, *samples, draws=2000):
    """How far `statistic` of `samples` moves when each sample is drawn
    again from itself, with replacement (a bootstrap): the middle 90 % of
    `draws` such figures, the spread another run of this size could read
    on this machine. Seeded, so that the same measurements give the same note."""
    chance = random.Random(0)
    figures = sorted(statistic(*(chance.choices(sample, k=len(sample)) for sample in samples)) for _ in range(draws))
    return f"90 % of resampled figures {figures[draws // 20]:.2f}–{figures[draws - 1 - draws // 20]:.2f}"


def row(rows, name, value, unit, floor=None, target=None, note="", ratio=None):
    """`ratio` defaults to value / floor; pass the median of paired ratios where rounds give them."""
    if ratio is None:
        ratio = value / floor if floor else None
    rows.append({"measure": name, "value": round(value, 2), "unit": unit,
                 "ratio": round(ratio, 2) if ratio else None, "target": target, "note": note})


def other_host_rules(count):
    """A rule file of `count` rules for hosts the bench's URLs never name:
    every other one rewrites its host's URLs, the rest discard them."""
    return "".join(
        f"[Rule r{i}]\nHosts=host-{i}.example;*.host-{i}.example\n"
        + (f"Match=^https://host-{i}\\.example/(.*)$\nRewrite=https://mirror-{i}.example/$1" if i % 2 else "Result=discarded") + "\n\n"
        for i in range(count))


def main():
    e = Env()
    rows = []
    DISP = ("org.openurld.Dispatcher1", "/org/openurld/Dispatcher1", "org.openurld.Dispatcher1", "OpenURL")
    PING = ("org.bench.Server", "/bench", "org.bench.Echo", "Ping")

    # 1-3. The bus floor (C server, C client), the C forwarder, and the
    # daemon deciding by itself (a URL the fallback refuses, no call out) or
    # through one handler answering handled. Floors and daemon are measured
    # in alternating rounds and each figure is the median of its rounds, so
    # that a drift of this shared machine hits floor and daemon alike.
    FWD = ("org.bench.Forward", "/bench", "org.bench.Echo", "Ping")
    server = start([e.busbench, "server", e.address, "org.bench.Server"], cpu=1)
    # The floor's twin: a second C echo server, the same program on the same
    # CPU, measured in the same rounds. Its ratio to the floor is what chance
    # alone makes of a ratio in this run (an A/A test): a target within that
    # of its line is inside the run's noise.
    TWIN = ("org.bench.Twin", "/bench", "org.bench.Echo", "Ping")
    twin = start([e.busbench, "server", e.address, TWIN[0]], cpu=1)
    forwarder = start([e.busbench, "forwarder", e.address, "org.bench.Forward", "org.bench.Server"], cpu=1)
    daemon, _ = e.daemon(["--max-handlers-per-client", "20000", "--max-handlers", "20000"], cpu=1)
    idle_rss = rss_kib(daemon.pid)
    handlers = start([e.busbench, "handlers", e.address, "0", "org.bench.Handler"])
    # The forwarding floor: a C relay doing openurld's forwarding with the
    # same messages (OpenURL(s) in, HandleURL(s a{sv}) to the same handler
    # process, (b) back) and nothing else, on the middle's CPU.
    RELAY = ("org.bench.Relay", "/org/openurld/Dispatcher1", "org.openurld.Dispatcher1", "OpenURL")
    relay = start([e.busbench, "relay", e.address, "org.bench.Relay", "org.bench.Handler"], cpu=1)
    # The floor of a refusal: the C echo server answering openurld's own
    # OpenURL (its path, interface, member and URL) with false, the URL read.
    REFUSAL_FLOOR = ("org.bench.Server", "/org/openurld/Dispatcher1", "org.openurld.Dispatcher1", "OpenURL")
    # The same three floors on sd-bus (bench/c/sdbench.c), on the middle's
    # CPU: for the same work, sd-bus runs about a third of libdbus's
    # instructions, and a floor must be the fastest way to do the work.
    SD_PING = ("org.bench.SdServer",) + PING[1:]
    SD_REFUSAL_FLOOR = ("org.bench.SdServer",) + REFUSAL_FLOOR[1:]
    SD_RELAY = ("org.bench.SdRelay",) + RELAY[1:]
    sd_floors = [start([e.sdbench, "server", e.address, SD_PING[0]], cpu=1),
                 start([e.sdbench, "relay", e.address, SD_RELAY[0], "org.bench.Handler"], cpu=1)]
    # The floors of the project's own D-Bus layer (bench/DBusLayer), on the
    # middle's CPU: openurld's OpenURL refused with the URL checked, answered
    # at once or from a task as the daemon's methods are, and forwarded with
    # the daemon's HandleURL call and context. What the daemon adds to them
    # is its walk; what they add to the C floors is the layer.
    LAYER = ("org.bench.Layer", "/org/openurld/Dispatcher1", "org.openurld.Dispatcher1", "OpenURL")
    LAYER_TASK = ("org.bench.LayerTask",) + LAYER[1:]
    LAYER_FWD = ("org.bench.LayerForward",) + LAYER[1:]
    # And the C relay written in Swift over libdbus alone (bench/SwiftRelay),
    # built as the daemon is: the layer's distance from the C relay, less
    # this one's, is the layer's own; this one's is the language's.
    SWIFT_RELAY = ("org.bench.SwiftRelay",) + RELAY[1:]
    # And sdbench's relay in Swift (bench/swift/sd-relay.swift): as it is,
    # and with each call answered by a task on the loop's thread, the way
    # the layer runs a call. Before the layer is ported to sd-bus, they say
    # what the language and that way of running calls would cost on it.
    SD_SWIFT_RELAY = ("org.bench.SdSwiftRelay",) + RELAY[1:]
    SD_SWIFT_TASKS = ("org.bench.SdSwiftTasks",) + RELAY[1:]
    layers = [start([e.layer_floor, e.address, LAYER[0], "refuse"], cpu=1), start([e.layer_floor, e.address, LAYER_TASK[0], "refuse-in-task"], cpu=1),
              start([e.layer_floor, e.address, LAYER_FWD[0], "forward", "org.bench.Handler"], cpu=1),
              start([e.swift_relay, e.address, SWIFT_RELAY[0], "org.bench.Handler"], cpu=1),
              start([e.sd_swift_relay, e.address, SD_SWIFT_RELAY[0], "org.bench.Handler", "callbacks"], cpu=1),
              start([e.sd_swift_relay, e.address, SD_SWIFT_TASKS[0], "org.bench.Handler", "tasks"], cpu=1)]
    latency = {"floor": (PING, "x"), "twin": (TWIN, "x"), "refusal_floor": (REFUSAL_FLOOR, "javascript:void(0)"), "decision": (DISP, "javascript:void(0)"),
               "fwd_floor": (FWD, "x"), "relay": (RELAY, "https://bench.example/x"), "forwarded": (DISP, "https://bench.example/x"),
               "layer": (LAYER, "javascript:void(0)"), "layer_task": (LAYER_TASK, "javascript:void(0)"), "layer_fwd": (LAYER_FWD, "https://bench.example/x"),
               "swift_relay": (SWIFT_RELAY, "https://bench.example/x"),
               "sd_swift_relay": (SD_SWIFT_RELAY, "https://bench.example/x"), "sd_swift_tasks": (SD_SWIFT_TASKS, "https://bench.example/x"),
               "sd_floor": (SD_PING, "x"), "sd_refusal_floor": (SD_REFUSAL_FLOOR, "javascript:void(0)"), "sd_relay": (SD_RELAY, "https://bench.example/x")}
    # Two placements: the client on the other CPU than the middle (apart), and on the same one.
    rounds = {k: [] for k in latency}
    shared = {k: [] for k in latency if k != "fwd_floor"}
    for _ in range(LATENCY_ROUNDS):
        for k, (target, arg) in latency.items():
            rounds[k].append(e.client(*target, arg, LATENCY_CALLS, cpu=0))
        for k in shared:
            shared[k].append(e.client(*latency[k][0], latency[k][1], LATENCY_CALLS, cpu=1))
    pinned = {k: {m: statistics.median(r[m] for r in v) for m in ("p50_us", "p99_us")} for k, v in rounds.items()}
    one_cpu = {k: statistics.median(r["p50_us"] for r in v) for k, v in shared.items()}
    # Not the refusals of the layer and of sd-bus, nor the Swift relays on
    # sd-bus: no row reads their throughput.
    tp_rounds = {k: [] for k in latency if k not in ("layer", "layer_task", "sd_refusal_floor", "sd_swift_relay", "sd_swift_tasks")}
    for _ in range(THROUGHPUT_ROUNDS):
        for k in tp_rounds:
            target, arg = latency[k]
            tp_rounds[k].append(e.throughput(*target, arg, 16, CALLS // 16))
    tp16 = {k: statistics.median(v) for k, v in tp_rounds.items()}
    floor, fwd_floor, decision, relay_floor = pinned["floor"], pinned["fwd_floor"], pinned["decision"], pinned["relay"]

    # Each target's ratio is the median of the rounds' own ratios: in a
    # round, subject and floor are measured a second apart, so that a
    # shared machine's slow minutes (a floor once read 3.25 bus round trips
    # in one run) cancel instead of landing on one side of the ratio.
    def measured(runs, name, key):
        return [r[key] for r in runs[name]] if key else runs[name]
    def paired(runs, subject, base, key=None):
        return in_rounds(measured(runs, subject, key), measured(runs, base, key))[0]
    def spread(runs, subject, base, key=None):
        return in_rounds(measured(runs, subject, key), measured(runs, base, key))[1]
    # Each target is held against the faster library's floor in this run:
    # libdbus's (busbench) or sd-bus's (sdbench), by the medians of their
    # rounds in that placement. The loser's rows stay in the table.
    def faster(runs, floors, key=None, higher=False):
        return (max if higher else min)(floors, key=lambda k: statistics.median(measured(runs, k, key)))
    bus_floor = {"pinned": faster(rounds, ("floor", "sd_floor"), "p50_us"), "one CPU": faster(shared, ("floor", "sd_floor"), "p50_us"),
                 "tp": faster(tp_rounds, ("floor", "sd_floor"), higher=True)}
    forwarding_floor = {"apart": faster(rounds, ("relay", "sd_relay"), "p50_us"), "one CPU": faster(shared, ("relay", "sd_relay"), "p50_us"),
                        "tp": faster(tp_rounds, ("relay", "sd_relay"), higher=True)}
    library = {"floor": "libdbus's (busbench server)", "sd_floor": "sd-bus's (sdbench server)",
               "relay": "libdbus's (busbench relay)", "sd_relay": "sd-bus's (sdbench relay)"}
    ratios = {
        "twin": paired(rounds, "twin", "floor", "p50_us"), "twin one CPU": paired(shared, "twin", "floor", "p50_us"),
        "twin tp": paired(tp_rounds, "twin", "floor"),
        "decision": paired(rounds, "decision", bus_floor["pinned"], "p50_us"), "forwarded": paired(rounds, "forwarded", forwarding_floor["apart"], "p50_us"),
        "decision one CPU": paired(shared, "decision", bus_floor["one CPU"], "p50_us"),
        "forwarded one CPU": paired(shared, "forwarded", forwarding_floor["one CPU"], "p50_us"),
        "decision tp": paired(tp_rounds, "decision", bus_floor["tp"]), "forwarded tp": paired(tp_rounds, "forwarded", forwarding_floor["tp"]),
        "sd floor": paired(rounds, "sd_floor", "floor", "p50_us"), "sd floor one CPU": paired(shared, "sd_floor", "floor", "p50_us"),
        "sd floor tp": paired(tp_rounds, "sd_floor", "floor"),
        "sd refusal floor": paired(rounds, "sd_refusal_floor", "refusal_floor", "p50_us"),
        "sd refusal floor one CPU": paired(shared, "sd_refusal_floor", "refusal_floor", "p50_us"),
        "sd relay": paired(rounds, "sd_relay", "relay", "p50_us"), "sd relay one CPU": paired(shared, "sd_relay", "relay", "p50_us"),
        "sd relay tp": paired(tp_rounds, "sd_relay", "relay"),
        "decision, refusal floor": paired(rounds, "decision", "refusal_floor", "p50_us"),
        "decision one CPU, refusal floor": paired(shared, "decision", "refusal_floor", "p50_us"),
        "refusal floor": paired(rounds, "refusal_floor", "floor", "p50_us"), "refusal floor one CPU": paired(shared, "refusal_floor", "floor", "p50_us"),
        "layer": paired(rounds, "layer", "floor", "p50_us"), "layer one CPU": paired(shared, "layer", "floor", "p50_us"),
        "layer task": paired(rounds, "layer_task", "floor", "p50_us"), "layer task one CPU": paired(shared, "layer_task", "floor", "p50_us"),
        "decision, layer": paired(rounds, "decision", "layer_task", "p50_us"), "decision one CPU, layer": paired(shared, "decision", "layer_task", "p50_us"),
        "layer fwd": paired(rounds, "layer_fwd", "relay", "p50_us"), "layer fwd one CPU": paired(shared, "layer_fwd", "relay", "p50_us"),
        "forwarded, layer": paired(rounds, "forwarded", "layer_fwd", "p50_us"), "forwarded one CPU, layer": paired(shared, "forwarded", "layer_fwd", "p50_us"),
        "layer fwd tp": paired(tp_rounds, "layer_fwd", "relay"), "forwarded tp, layer": paired(tp_rounds, "forwarded", "layer_fwd"),
        "swift relay": paired(rounds, "swift_relay", "relay", "p50_us"), "swift relay one CPU": paired(shared, "swift_relay", "relay", "p50_us"),
        "swift relay tp": paired(tp_rounds, "swift_relay", "relay"),
        "sd swift relay": paired(rounds, "sd_swift_relay", "sd_relay", "p50_us"), "sd swift relay one CPU": paired(shared, "sd_swift_relay", "sd_relay", "p50_us"),
        "sd swift tasks": paired(rounds, "sd_swift_tasks", "sd_relay", "p50_us"), "sd swift tasks one CPU": paired(shared, "sd_swift_tasks", "sd_relay", "p50_us"),
    }
    paired_note = "ratio: median of the rounds' own ratios"
    floor_free = e.client(*PING, "x", CALLS)
    decision_free = e.client(*DISP, "javascript:void(0)", CALLS)
    floor_tp = {k: e.throughput(*PING, "x", k, CALLS // k) for k in (1, 4)}
    floor_tp[16] = tp16["floor"]
    stop(relay)
    stop(twin)
    for sd_floor in sd_floors:
        stop(sd_floor)
    for layer in layers:
        stop(layer)
    stop(handlers)
    how = f"median of {THROUGHPUT_ROUNDS} rounds alternating with the daemon's"
    row(rows, "bus floor p50 (C↔C, pinned)", floor["p50_us"], "µs",
        note=f"median of {LATENCY_ROUNDS} rounds of {LATENCY_CALLS} calls alternating with the daemon's")
    row(rows, "bus floor p99 (C↔C, pinned)", floor["p99_us"], "µs")
    row(rows, "bus floor p50 (C↔C, free)", floor_free["p50_us"], "µs")
    for k, v in floor_tp.items():
        row(rows, f"bus floor throughput, {k} clients", v, "calls/s", note=how if k == 16 else "")
    aa = "A/A, the run's noise: a second C echo server against the floor's, in the same rounds; "
    row(rows, "floor's twin p50 (pinned)", pinned["twin"]["p50_us"], "µs", floor["p50_us"],
        note=aa + paired_note + "; " + spread(rounds, "twin", "floor", "p50_us"), ratio=ratios["twin"])
    row(rows, "floor's twin p50, one CPU", one_cpu["twin"], "µs", one_cpu["floor"],
        note=aa + paired_note + "; " + spread(shared, "twin", "floor", "p50_us"), ratio=ratios["twin one CPU"])
    row(rows, "floor's twin throughput, 16 clients", tp16["twin"], "calls/s", tp16["floor"],
        note=aa + paired_note + "; " + spread(tp_rounds, "twin", "floor"), ratio=ratios["twin tp"])
    row(rows, "Ping forwarder p50 (C→C→C, pending calls, pinned)", fwd_floor["p50_us"], "µs", floor["p50_us"],
        note="ratio: bus round trips; the earlier floor, kept for comparison")
    row(rows, "forwarding floor p50 (C relay, openurld's messages, client and middle apart)", relay_floor["p50_us"], "µs",
        floor["p50_us"], note="ratio: bus round trips (2 at the least)")
    row(rows, "forwarding floor p50, everything on one CPU", one_cpu["relay"], "µs", one_cpu["floor"],
        note="ratio: bus round trips on one CPU")
    row(rows, "forwarding floor throughput, 16 clients", tp16["relay"], "calls/s", note=how)
    sd_note = "the same program on sd-bus (bench/c/sdbench.c); ratio: times libdbus's (the median of the rounds' own ratios)"
    row(rows, "bus floor on sd-bus p50 (C client ↔ sd-bus server, pinned)", pinned["sd_floor"]["p50_us"], "µs", floor["p50_us"],
        note=sd_note + "; " + spread(rounds, "sd_floor", "floor", "p50_us"), ratio=ratios["sd floor"])
    row(rows, "bus floor on sd-bus p50, one CPU", one_cpu["sd_floor"], "µs", one_cpu["floor"], note=sd_note, ratio=ratios["sd floor one CPU"])
    row(rows, "bus floor on sd-bus throughput, 16 clients", tp16["sd_floor"], "calls/s", tp16["floor"], note=sd_note, ratio=ratios["sd floor tp"])
    row(rows, "forwarding floor on sd-bus p50 (sd-bus relay, client and middle apart)", pinned["sd_relay"]["p50_us"], "µs", relay_floor["p50_us"],
        note=sd_note + "; " + spread(rounds, "sd_relay", "relay", "p50_us"), ratio=ratios["sd relay"])
    row(rows, "forwarding floor on sd-bus p50, everything on one CPU", one_cpu["sd_relay"], "µs", one_cpu["relay"],
        note=sd_note + "; " + spread(shared, "sd_relay", "relay", "p50_us"), ratio=ratios["sd relay one CPU"])
    row(rows, "forwarding floor on sd-bus throughput, 16 clients", tp16["sd_relay"], "calls/s", tp16["relay"],
        note=sd_note + "; " + spread(tp_rounds, "sd_relay", "relay"), ratio=ratios["sd relay tp"])
    row(rows, "refusal floor on sd-bus p50 (sd-bus server refusing openurld's OpenURL, pinned)", pinned["sd_refusal_floor"]["p50_us"], "µs",
        pinned["refusal_floor"]["p50_us"], note=sd_note, ratio=ratios["sd refusal floor"])
    row(rows, "refusal floor on sd-bus p50, one CPU", one_cpu["sd_refusal_floor"], "µs", one_cpu["refusal_floor"], note=sd_note,
        ratio=ratios["sd refusal floor one CPU"])
    def against(floor_name, runs, subject, key=None):
        return f"{paired_note}; floor: {library[floor_name]}, the faster in this run; {spread(runs, subject, floor_name, key)}"
    refusal_floor = pinned["refusal_floor"]
    row(rows, "refusal floor p50 (C server refusing openurld's OpenURL, pinned)", refusal_floor["p50_us"], "µs", floor["p50_us"],
        note="ratio: times the Ping floor (openurld's longer message); " + paired_note, ratio=ratios["refusal floor"])
    row(rows, "refusal floor p50, one CPU", one_cpu["refusal_floor"], "µs", one_cpu["floor"], note="ratio: times the Ping floor",
        ratio=ratios["refusal floor one CPU"])
    row(rows, "in-daemon decision p50 (pinned)", decision["p50_us"], "µs", pinned[bus_floor["pinned"]]["p50_us"], "≤ 1.1",
        against(bus_floor["pinned"], rounds, "decision", "p50_us"), ratios["decision"])
    row(rows, "in-daemon decision p50 (pinned), against the refusal floor", decision["p50_us"], "µs", refusal_floor["p50_us"],
        note="the same messages: what is the daemon's, not the longer message's; " + paired_note, ratio=ratios["decision, refusal floor"])
    row(rows, "in-daemon decision p99 (pinned)", decision["p99_us"], "µs", floor["p99_us"])
    row(rows, "in-daemon decision p50 (free)", decision_free["p50_us"], "µs", floor_free["p50_us"])
    row(rows, "in-daemon decision throughput, 16 clients", tp16["decision"], "calls/s", tp16[bus_floor["tp"]], "≥ 0.7",
        against(bus_floor["tp"], tp_rounds, "decision"), ratios["decision tp"])
    row(rows, "in-daemon decision p50, one CPU", one_cpu["decision"], "µs", one_cpu[bus_floor["one CPU"]], "≤ 1.1",
        against(bus_floor["one CPU"], shared, "decision", "p50_us"), ratios["decision one CPU"])
    row(rows, "in-daemon decision p50, one CPU, against the refusal floor", one_cpu["decision"], "µs", one_cpu["refusal_floor"],
        note=paired_note, ratio=ratios["decision one CPU, refusal floor"])
    row(rows, "forwarded to one handler p50 (client and daemon apart)", pinned["forwarded"]["p50_us"], "µs",
        pinned[forwarding_floor["apart"]]["p50_us"], "≤ 1.1", against(forwarding_floor["apart"], rounds, "forwarded", "p50_us"), ratios["forwarded"])
    row(rows, "forwarded to one handler p50, one CPU", one_cpu["forwarded"], "µs", one_cpu[forwarding_floor["one CPU"]], "≤ 1.1",
        against(forwarding_floor["one CPU"], shared, "forwarded", "p50_us"), ratios["forwarded one CPU"])
    row(rows, "forwarded to one handler throughput, 16 clients", tp16["forwarded"], "calls/s", tp16[forwarding_floor["tp"]], "≥ 0.9",
        against(forwarding_floor["tp"], tp_rounds, "forwarded"), ratios["forwarded tp"])
    layer_note = "the project's D-Bus layer, no walk (bench/DBusLayer); " + paired_note
    row(rows, "D-Bus layer refusing p50 (answered at once, pinned)", pinned["layer"]["p50_us"], "µs", floor["p50_us"],
        note="ratio: times the Ping floor; " + layer_note, ratio=ratios["layer"])
    row(rows, "D-Bus layer refusing p50, one CPU", one_cpu["layer"], "µs", one_cpu["floor"], note="ratio: times the Ping floor; " + layer_note,
        ratio=ratios["layer one CPU"])
    row(rows, "D-Bus layer refusing from a task p50 (as the daemon's methods answer, pinned)", pinned["layer_task"]["p50_us"], "µs", floor["p50_us"],
        note="ratio: times the Ping floor; " + layer_note, ratio=ratios["layer task"])
    row(rows, "D-Bus layer refusing from a task p50, one CPU", one_cpu["layer_task"], "µs", one_cpu["floor"],
        note="ratio: times the Ping floor; " + layer_note, ratio=ratios["layer task one CPU"])
    row(rows, "in-daemon decision p50 (pinned), against the D-Bus layer from a task", decision["p50_us"], "µs", pinned["layer_task"]["p50_us"],
        note="what the walk adds; " + paired_note, ratio=ratios["decision, layer"])
    row(rows, "in-daemon decision p50, one CPU, against the D-Bus layer from a task", one_cpu["decision"], "µs", one_cpu["layer_task"],
        note="what the walk adds; " + paired_note, ratio=ratios["decision one CPU, layer"])
    swift_note = "busbench's relay in Swift over libdbus alone, no layer (bench/SwiftRelay); "
    row(rows, "Swift relay p50 (the C relay in Swift, client and middle apart)", pinned["swift_relay"]["p50_us"], "µs", relay_floor["p50_us"],
        note="ratio: times the C relay; " + swift_note + paired_note + "; " + spread(rounds, "swift_relay", "relay", "p50_us"),
        ratio=ratios["swift relay"])
    row(rows, "Swift relay p50, one CPU", one_cpu["swift_relay"], "µs", one_cpu["relay"],
        note="ratio: times the C relay; " + swift_note + paired_note + "; " + spread(shared, "swift_relay", "relay", "p50_us"),
        ratio=ratios["swift relay one CPU"])
    row(rows, "Swift relay throughput, 16 clients", tp16["swift_relay"], "calls/s", tp16["relay"],
        note="ratio: times the C relay's; " + swift_note + paired_note, ratio=ratios["swift relay tp"])
    row(rows, "D-Bus layer forwarding p50 (the daemon's HandleURL, client and middle apart)", pinned["layer_fwd"]["p50_us"], "µs", relay_floor["p50_us"],
        note="ratio: times the C relay; " + layer_note, ratio=ratios["layer fwd"])
    row(rows, "D-Bus layer forwarding p50, one CPU", one_cpu["layer_fwd"], "µs", one_cpu["relay"], note="ratio: times the C relay; " + layer_note,
        ratio=ratios["layer fwd one CPU"])
    row(rows, "D-Bus layer forwarding throughput, 16 clients", tp16["layer_fwd"], "calls/s", tp16["relay"],
        note="ratio: times the C relay's; " + layer_note, ratio=ratios["layer fwd tp"])
    sd_swift_note = "sdbench's relay in Swift on sd-bus, no DBus module (bench/swift/sd-relay.swift); "
    for key, name, what in (("sd_swift_relay", "sd swift relay", "as the C relay runs it"),
                            ("sd_swift_tasks", "sd swift tasks", "each call answered by a task on the loop's thread")):
        row(rows, f"Swift relay on sd-bus p50, {what} (apart)", pinned[key]["p50_us"], "µs", pinned["sd_relay"]["p50_us"],
            note="ratio: times the sd-bus relay; " + sd_swift_note + paired_note + "; " + spread(rounds, key, "sd_relay", "p50_us"), ratio=ratios[name])
        row(rows, f"Swift relay on sd-bus p50, {what}, one CPU", one_cpu[key], "µs", one_cpu["sd_relay"],
            note="ratio: times the sd-bus relay; " + sd_swift_note + paired_note + "; " + spread(shared, key, "sd_relay", "p50_us"),
            ratio=ratios[name + " one CPU"])
    row(rows, "forwarded to one handler p50 (apart), against the D-Bus layer forwarding", pinned["forwarded"]["p50_us"], "µs", pinned["layer_fwd"]["p50_us"],
        note="what the walk adds; " + paired_note, ratio=ratios["forwarded, layer"])
    row(rows, "forwarded to one handler p50, one CPU, against the D-Bus layer forwarding", one_cpu["forwarded"], "µs", one_cpu["layer_fwd"],
        note="what the walk adds; " + paired_note, ratio=ratios["forwarded one CPU, layer"])
    row(rows, "forwarded to one handler throughput, 16 clients, against the D-Bus layer forwarding", tp16["forwarded"], "calls/s", tp16["layer_fwd"],
        note="what the walk adds; " + paired_note, ratio=ratios["forwarded tp, layer"])

    # 4. Chain depth.
    depth = {1: pinned["forwarded"]["p50_us"]}
    for passing in (7, 63):
        handlers = start([e.busbench, "handlers", e.address, str(passing)])
        depth[passing + 1] = e.client(*DISP, "https://bench.example/x", CALLS // 4, cpu=0)["p50_us"]
        stop(handlers)
    for n, v in depth.items():
        row(rows, f"chain of {n} handler(s) p50", v, "µs")
    row(rows, "cost per extra hop", (depth[64] - depth[1]) / 63, "µs", floor["p50_us"], note="ratio: hops per bus round trip")

    # 4b. Rules: 1000 loaded for other hosts must cost next to nothing. In
    # rounds, as the rows above, loading and unloading the 1000 by SIGHUP.
    handling = start([e.busbench, "handlers", e.address, "0"])
    rules_dir = f"{e.dir}/config/openurld/rules.d"
    os.makedirs(rules_dir, exist_ok=True)
    rules = other_host_rules(1000)
    def reload(line):
        """SIGHUP, then wait for the daemon to log `line` once more."""
        seen = open(f"{e.dir}/openurld.log").read().count(line)
        daemon.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 20
        while open(f"{e.dir}/openurld.log").read().count(line) <= seen:
            if time.monotonic() > deadline:
                raise SystemExit(f"bench: openurld did not log '{line}' after SIGHUP")
            time.sleep(0.01)
    def load(loaded):
        if loaded:
            with open(f"{rules_dir}/50-bench.rules", "w") as f:
                f.write(rules)
            reload("loaded 1000 rules")
        else:
            os.remove(f"{rules_dir}/50-bench.rules")
            reload("loaded 0 rules")
    # One reload a round: the order turns (without, with; with, without; ...).
    without_rules, with_rules = [], []
    loaded = False
    for index in range(ROUNDS):
        for state in in_turn(index, (False, True)):
            if state != loaded:
                load(state)
                loaded = state
            (with_rules if state else without_rules).append(e.client(*DISP, "https://bench.example/x", CALLS, cpu=0)["p50_us"])
    if loaded:
        load(False)
    rules_ratio, rules_spread = in_rounds(with_rules, without_rules)
    row(rows, "OpenURL p50, no rules", statistics.median(without_rules), "µs", note=f"median of {ROUNDS} rounds alternating with the next row's")
    row(rows, "OpenURL p50, 1000 rules for other hosts", statistics.median(with_rules), "µs", statistics.median(without_rules), "≤ 1.2",
        note=paired_note + "; " + rules_spread, ratio=rules_ratio)
    stop(handling)

    # 5. Registry scale: other handlers that never match; one that handles.
    # In rounds: each measures 10, then 1000, then 10000 registered, and
    # lets the larger fillers go (the daemon drops a leaver's handlers), so
    # that each ratio is the median of rounds' own, as in the rows above.
    handling = start([e.busbench, "handlers", e.address, "0"])
    sizes = (10, 1000) if QUICK else (10, 1000, 10000)
    base = start([e.busbench, "filler", e.address, str(sizes[0])])
    scale = {size: [] for size in sizes}
    for index in range(ROUNDS):
        fillers = []
        registered = sizes[0]
        for size in sizes:
            if size > registered:
                fillers.append(start([e.busbench, "filler", e.address, str(size - registered)]))
                registered = size
            scale[size].append(e.client(*DISP, "https://bench.example/x", CALLS, cpu=0)["p50_us"])
        rss_registered = rss_kib(daemon.pid)
        if index == ROUNDS - 1:
            break  # the last round's stay, for the footprint rows below
        left = open(f"{e.dir}/openurld.log").read().count("left the bus; removed handlers")
        for filler in fillers:
            stop(filler)
        deadline = time.monotonic() + 30
        while open(f"{e.dir}/openurld.log").read().count("left the bus; removed handlers") < left + len(fillers):
            if time.monotonic() > deadline:
                raise SystemExit("bench: openurld did not drop the fillers' handlers")
            time.sleep(0.01)
    for size, values in scale.items():
        size_ratio, size_spread = in_rounds(values, scale[sizes[0]])
        row(rows, f"OpenURL p50 with {size} handlers registered", statistics.median(values), "µs", statistics.median(scale[sizes[0]]),
            "≤ 1.1 at 10000" if size == 10000 else None, ratio=size_ratio, note=size_spread if size != sizes[0] else "")

    # 8. Footprint: dispatches must not grow memory.
    dispatches = 20000 if QUICK else 100000
    e.throughput(*DISP, "https://bench.example/x", 4, dispatches // 4)
    rss_after = rss_kib(daemon.pid)
    row(rows, "daemon RSS idle", idle_rss / 1024, "MiB", note="target ≤ 10 MiB")
    row(rows, f"lowest nice value among the daemon's threads, after {dispatches} dispatches", min(thread_nices(daemon.pid)), "",
        target="0", note="as a user's daemon runs: bench/run drops CAP_SYS_NICE (run_as_a_user); as root with it, "
        "libdispatch lowers its workers' by their work's quality of service, to -2 or -4")
    # The layout the idle figure depends on (scripts/release-flags): how much
    # of scripts/symbol-order.txt still names functions of the binary.
    listed = [line.strip() for line in open(f"{ROOT}/scripts/symbol-order.txt") if line.strip() and not line.startswith("#")]
    defined = set(subprocess.check_output(["nm", "--defined-only", "--format=just-symbols", os.path.realpath(f"{e.bin}/openurld-multicall")], text=True).split())
    row(rows, "scripts/symbol-order.txt: functions the binary still defines", 100 * sum(name in defined for name in listed) / len(listed), "%",
        note="bench/symbol-order rewrites the list; idle RSS grows as it goes stale")
    # The profile-guided build (scripts/release-flags): LLVM splits a
    # function's rarely run code off into a ".cold" part only where the
    # profile gave it counts, so none among the project's own functions
    # means the build did not use scripts/pgo-profile.proftext.
    split = [name for name in defined if name.endswith(".cold") and re.match(r"\$s\d+(DBus|OpenURLDaemon|Routing|Router|Rules|Desktop|XDG)", name)]
    if not split:
        raise SystemExit("bench: the release build has no function split by its profile: "
                         "scripts/release-flags did not apply scripts/pgo-profile.proftext (see its warning)")
    row(rows, "profile-guided build: the project's functions with their rarely run code split off", len(split), "functions",
        note="scripts/pgo-profile.proftext (bench/pgo-profile rewrites it); 0 would stop the run")
    row(rows, f"daemon RSS with {registered + 1} handlers", rss_registered / 1024, "MiB")
    row(rows, f"daemon RSS after {dispatches} more dispatches", rss_after / 1024, "MiB", rss_registered / 1024, "≈ 1")
    for p in fillers + [base, handling]:
        stop(p)
    # Churn: clients that register handlers, are asked, and leave. The first
    # round warms the allocator and the thread pool; the second must not grow.
    clients = 50 if QUICK else 300
    def churn():
        for _ in range(clients):
            churner = start([e.busbench, "handlers", e.address, "3"])
            e.client(*DISP, "https://bench.example/x", 2)
            stop(churner)
        return rss_kib(daemon.pid)
    warm = churn()
    again = churn()
    row(rows, f"daemon RSS after {clients} clients registered 4 handlers each, were asked and left", warm / 1024, "MiB")
    row(rows, f"daemon RSS after {clients} more such clients", again / 1024, "MiB", warm / 1024, "≈ 1")

    # 7. CLI start-up against dbus-send making the same call.
    handling = start([e.busbench, "handlers", e.address, "0"])
    def timed(cmd, runs):
        times = []
        for _ in range(runs):
            t0 = time.monotonic()
            # A usage error and dbus-send --help exit non-zero; the opens are checked by the counting run below.
            subprocess.run(cmd, env=e.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            times.append(time.monotonic() - t0)
        return statistics.median(times) * 1000
    def timed_in_turn(cmds, runs):
        times = [[] for _ in cmds]
        for _ in range(runs):
            for cmd, t in zip(cmds, times):
                t.append(timed(cmd, 1))
        return [statistics.median(t) for t in times]
    runs = 10 if QUICK else 60
    # One run of each in turn, so that drift hits all of them alike.
    dbus_send, dbus_send_help, swift_floor, version, usage, one_url, full_url = timed_in_turn([
        ["dbus-send", "--session", "--print-reply", "--dest=org.openurld.Dispatcher1",
         "/org/openurld/Dispatcher1", "org.openurld.Dispatcher1.OpenURL", "string:https://bench.example/x"],
        ["dbus-send", "--help"],
        [e.swift_client, "https://bench.example/x"],
        [e.openurl, "--version"],
        [e.openurl, "--bogus"],
        [e.openurl, "https://bench.example/x"],
        [e.full_cli, "https://bench.example/x"],
    ], runs)
    row(rows, "dbus-send --print-reply, one OpenURL (whole process)", dbus_send, "ms")
    row(rows, "dbus-send --help (whole process)", dbus_send_help, "ms")
    row(rows, "openurl --version (whole process)", version, "ms", dbus_send_help, "≤ 1.2")
    row(rows, "openurl --bogus, a usage error (whole process)", usage, "ms", dbus_send_help, "≤ 1.2",
        note="the front, with the full CLI's parser (OpenCommandLine)")
    row(rows, "smallest Swift program making the same call (whole process)", swift_floor, "ms", dbus_send,
        note="bench/swift/client.swift, Swift runtime linked statically")
    row(rows, "openurl URL, handled by a handler (whole process)", one_url, "ms", dbus_send, "≤ 1.1",
        note="the fast front")
    row(rows, "the full CLI's openurl URL, handled (whole process)", full_url, "ms", dbus_send,
        note="what openurl cost before the front")
    # Threads, system calls and page faults of that one process, as strace and getrusage count them.
    def process_counts(cmd):
        counts = f"{e.dir}/strace.txt"
        subprocess.run(["strace", "-f", "-c", "-o", counts] + cmd, env=e.env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        calls = {}
        for line in open(counts):
            fields = line.split()
            if len(fields) >= 5 and fields[0][0].isdigit() and fields[-1] != "total":
                calls[fields[-1]] = int(fields[3])
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, env=e.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return calls, (after.ru_minflt - before.ru_minflt) + (after.ru_majflt - before.ru_majflt)
    if shutil.which("strace"):
        send = ["dbus-send", "--session", "--print-reply", "--dest=org.openurld.Dispatcher1",
                "/org/openurld/Dispatcher1", "org.openurld.Dispatcher1.OpenURL", "string:https://bench.example/x"]
        for label, cmd in (("openurl URL, handled", [e.openurl, "https://bench.example/x"]), ("dbus-send, the same call", send)):
            calls, faults = process_counts(cmd)
            row(rows, f"{label}: threads created (strace -f)", calls.get("clone", 0) + calls.get("clone3", 0), "threads")
            row(rows, f"{label}: system calls (strace -f -c)", sum(calls.values()), "calls")
            row(rows, f"{label}: page faults (getrusage)", faults, "faults")
    stop(handling)

    # 6a. The fallback's lookup: a scheme no application handles, answered
    # after reading the catalog; the realistic tree against a one-file tree.
    # In alternating rounds, a daemon on each tree in turn.
    stop(daemon)
    small_rounds, real_rounds = [], []
    for index in range(DAEMON_ROUNDS):
        for small_tree, results in in_turn(index, ((True, small_rounds), (False, real_rounds))):
            daemon, _ = e.daemon(cpu=1, small_tree=small_tree)
            results.append(e.client(*DISP, "nothing-handles-this:x", DAEMON_CALLS, cpu=0)["p50_us"])
            stop(daemon)
    lookup_small, lookup_real = statistics.median(small_rounds), statistics.median(real_rounds)
    row(rows, "fallback lookup p50, 1-file tree", lookup_small, "µs")
    lookup_ratio, lookup_spread = in_rounds(real_rounds, small_rounds)
    row(rows, "fallback lookup p50, 300-file tree, 3 data dirs, 20 defaults", lookup_real, "µs", lookup_small, "≤ 1.1",
        note=paired_note + "; " + lookup_spread, ratio=lookup_ratio)

    # 5b. Files: typed by name with a database of names only (the floor:
    # what opening a file by glob costs), by name with contents rules too
    # (the gate reads the file's first bytes for runnable contents), and by
    # contents (no glob: the rules read the first bytes). Alternating rounds.
    paper, download = f"file://{e.dir}/home/paper.pdf", f"file://{e.dir}/home/download"
    file_rounds = {"names": [], "all": [], "contents": []}
    for index in range(DAEMON_ROUNDS):
        for variant in in_turn(index, ("mime-names", "mime-all")):
            daemon, _ = e.daemon(cpu=1, mime=variant)
            if variant == "mime-names":
                file_rounds["names"].append(e.client(*DISP, paper, DAEMON_CALLS, cpu=0)["p50_us"])
            else:
                file_rounds["all"].append(e.client(*DISP, paper, DAEMON_CALLS, cpu=0)["p50_us"])
                file_rounds["contents"].append(e.client(*DISP, download, DAEMON_CALLS, cpu=0)["p50_us"])
            stop(daemon)
    by_glob, by_glob_checked, by_contents = (statistics.median(file_rounds[k]) for k in ("names", "all", "contents"))
    row(rows, "file by its name p50, database of names only (floor)", by_glob, "µs")
    checked_ratio, checked_spread = in_rounds(file_rounds["all"], file_rounds["names"])
    contents_ratio, contents_spread = in_rounds(file_rounds["contents"], file_rounds["names"])
    row(rows, "file by its name p50, with contents rules (first bytes checked)", by_glob_checked, "µs", by_glob, "≤ 1.1",
        note=paired_note + "; " + checked_spread, ratio=checked_ratio)
    row(rows, "file by its contents p50 (no glob; magic decides)", by_contents, "µs", by_glob,
        note="reads up to the database's extent of the file; " + paired_note + "; " + contents_spread, ratio=contents_ratio)
    # Start-up: every start above on the desktop-sized tree counts (the
    # first daemon's, and the lookup rounds'), and a start's time spreads
    # over 6–12 ms on this machine (side runs): when they were seven, their
    # median moved by a millisecond from run to run. Twenty-one more, each
    # stopped before the next, make the median steady; the note gives the
    # quartiles.
    for _ in range(STARTS):
        daemon, _ = e.daemon(cpu=1)
        stop(daemon)
    daemon, _ = e.daemon(cpu=1)
    quartiles = statistics.quantiles([s * 1000 for s in e.startups], n=4)
    row(rows, "daemon start-up, exec to owning its name", statistics.median(e.startups) * 1000, "ms",
        note=f"target ≤ 10 ms; median of {len(e.startups)} starts on the desktop-sized tree, through taskset; "
             f"quartiles {quartiles[0]:.1f}–{quartiles[2]:.1f} ms")

    # 6. Open through the default app: request → recorder has the URL.
    def launch(cmd_for, runs):
        delays, wholes = launch_samples(cmd_for, runs)
        return statistics.median(delays), statistics.median(wholes)
    def launch_samples(cmd_for, runs):
        delays, wholes = [], []
        for i in range(runs):
            url = f"https://launch.example/{cmd_for.__name__}/{i}/{time.monotonic_ns()}"
            t0 = time.time_ns()
            subprocess.run(cmd_for(url), env=e.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            whole = time.time_ns() - t0
            deadline = time.monotonic() + 5
            arrived = None
            while arrived is None and time.monotonic() < deadline:
                if os.path.exists(e.log):
                    for line in open(e.log):
                        if not line.endswith("\n"):
                            continue  # a recorder still writing it
                        stamp, got = line.split(" ", 1)
                        if got.strip() == url:
                            arrived = int(stamp)
                if arrived is None:
                    time.sleep(0.0005)
            if arrived is None:
                raise SystemExit(f"bench: {cmd_for(url)[0]} never delivered {url}")
            delays.append((arrived - t0) / 1e6)
            wholes.append(whole / 1e6)
        return delays, wholes
    def openurl_daemon(url): return [e.openurl, url]
    def gio_open(url): return ["gio", "open", url]
    def xdg_open(url): return ["xdg-open", url]
    def dbus_call(url): return [e.busbench, "client", e.address, *DISP, url, "1"]
    def spawner_call(url): return [e.busbench, "client", e.address, "org.bench.Spawner", "/", "org.openurld.Dispatcher1", "OpenURL", url, "1"]
    def swift_call(url): return [e.swift_client, url]
    # The floor: a C client process, the bus, a C spawner, the app. It runs
    # beside the daemon (on the daemon's CPU), and the launches alternate in
    # rounds (floor, then each way through the daemon), so that a busier
    # minute of this shared machine costs floor and daemon alike.
    spawner = start([e.busbench, "spawner", e.address, "org.bench.Spawner", e.busbench, "record", e.log], cpu=1)
    ways = {"spawned": spawner_call, "via_daemon": openurl_daemon, "via_call": dbus_call, "via_swift": swift_call}
    samples = {k: ([], []) for k in ways}
    for _ in range(LAUNCH_ROUNDS):
        for k, way in ways.items():
            delays, wholes = launch_samples(way, LAUNCHES // LAUNCH_ROUNDS)
            samples[k][0].extend(delays)
            samples[k][1].extend(wholes)
    spawned, via_daemon, via_call, via_swift = (tuple(statistics.median(v) for v in samples[k]) for k in ways)
    stop(spawner)
    stop(daemon)
    def openurl_direct(url): return [e.openurl, url]
    direct = launch(openurl_direct, LAUNCHES)
    gio = launch(gio_open, LAUNCHES)
    xdg = launch(xdg_open, LAUNCHES)
    row(rows, "C client → bus → C spawner → app (floor): request → app has the URL", spawned[0], "ms")
    def of_medians(way):
        """The ratio's spread: the launches of `way` and the floor's drawn again."""
        return resampled(lambda x, y: statistics.median(x) / statistics.median(y), samples[way][0], samples["spawned"][0])
    row(rows, "openurl URL (daemon running): request → app has the URL", via_daemon[0], "ms", spawned[0], "≤ 1.15",
        note=f"medians of {LAUNCHES} launches each; " + of_medians("via_daemon"))
    row(rows, "C client process → openurld → app: request → app has the URL", via_call[0], "ms", spawned[0], "≤ 1.0",
        note="the daemon's share, and the GIO and portal path: the same client as the floor's; " + of_medians("via_call"))
    row(rows, "smallest Swift program → openurld → app: request → app has the URL", via_swift[0], "ms", spawned[0],
        note="bench/swift/client.swift")
    row(rows, "gio open: request → browser has the URL", gio[0], "ms")
    row(rows, "xdg-open: request → browser has the URL", xdg[0], "ms")
    row(rows, "openurl (daemon running): request → browser has the URL", via_daemon[0], "ms", gio[0], "≤ 0.5 of gio")
    row(rows, "openurl (no daemon, direct): request → browser has the URL", direct[0], "ms", gio[0], "≤ 0.5 of gio")
    row(rows, "one OpenURL D-Bus call from a C client process: request → browser has the URL", via_call[0], "ms", gio[0],
        note="how apps using GIO (DBusActivatable) or the library reach openurld")
    row(rows, "openurl (daemon running) vs xdg-open", via_daemon[0], "ms", xdg[0], "≤ 0.1 of xdg-open")
    row(rows, "gio open (whole process)", gio[1], "ms")
    row(rows, "xdg-open (whole process)", xdg[1], "ms")
    row(rows, "openurl, daemon running (whole process)", via_daemon[1], "ms", gio[1])
    row(rows, "openurl, direct (whole process)", direct[1], "ms", gio[1])

    # 9. Link detection: MB/s of mixed text, against linkify-it-py on the same text.
    corpus = open(f"{ROOT}/Tests/LinkDetectionTests/agreement/corpus.txt", encoding="utf-8").read()
    text = corpus * (4 if QUICK else 40)
    with open(f"{e.dir}/detect.txt", "w", encoding="utf-8") as f:
        f.write(text)
    megabytes = len(text.encode()) / 1e6
    def ours():
        t0 = time.monotonic()
        with open(f"{e.dir}/detect.txt") as f:
            out = subprocess.run([e.full_cli, "detect", "--kinds", "web,email"], stdin=f, capture_output=True, check=False).stdout
        return time.monotonic() - t0, out.count(b"\n")
    sys.path.insert(0, f"{ROOT}/.build/python")
    from linkify_it import LinkifyIt
    linkify = LinkifyIt()
    def theirs():
        t0 = time.monotonic()
        found = sum(len(linkify.match(line) or []) for line in text.splitlines())
        return time.monotonic() - t0, found
    our_runs = [ours() for _ in range(3)]
    their_runs = [theirs() for _ in range(3 if QUICK else 1)]
    our_rate = megabytes / min(t for t, _ in our_runs)
    their_rate = megabytes / min(t for t, _ in their_runs)
    row(rows, "link detection, linkify-it-py (in-process, per line)", their_rate, "MB/s", note=f"{their_runs[0][1]} links in {megabytes:.1f} MB")
    row(rows, "link detection, openurl detect (whole process)", our_rate, "MB/s", their_rate,
        note=f"{our_runs[0][1]} links; ratio: times linkify-it-py's rate")

    # 1b. What is on the caller's wait, counted instead of timed.
    critical_path_rows(e, rows)

    # 1c. A forwarded call's four messages read and written, through libdbus
    # as the layer does today and through WireFormat, the same format in Swift.
    wire_format_rows(e, rows)

    # 10. The chooser: OpenURL of a link an Ask= rule covers, until the
    # chooser's window is mapped; cold (D-Bus activation starts the chooser)
    # and warm (it runs); against the smallest GTK 4 window in C, exec to mapped.
    chooser_rows(e, rows)

    cleanup()
    shutil.rmtree(e.dir, ignore_errors=True)
    return rows


class Counted(NamedTuple):
    """What one middle runs while a caller waits, per call (`critical_path_counts`)."""
    instructions: float
    # Lines of code fetched into callgrind's simulated first-level
    # instruction cache (the host's geometry): code the step touches that
    # is not already there, about a dozen cycles each on real hardware.
    icache_misses: float
    # Retains that took the Swift runtime's slow path (`incrementSlow`): an
    # object with a side table, which one weak reference to it gives it for
    # good, costs that on every retain and release. 0 for C middles.
    slow_retains: float = 0.0


def slow_retain_calls(path):
    """Calls to the runtime's `incrementSlow` in one callgrind dump (names uncompressed)."""
    count, counting = 0, False
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("cfn="):
                counting = "incrementSlow" in line
            elif counting and line.startswith("calls="):
                count += int(line[6:].split()[0])
                counting = False
    return count


def critical_path_counts(e, start_middle, target, arg, sends_per_call, calls=200):
    """Instructions the middle runs while a caller waits, per call, and the
    instruction-cache misses among them: from each message it reads to the
    next message it sends (callgrind with its cache simulated, dumping after
    every read from a socket and before every write to one: recvmsg and
    sendmsg for libdbus and sd-bus, recv and send for the DBus module).
    A call is `sends_per_call` such
    steps (2 to forward: the call out, then the answer); each figure is the
    median over every run of that many consecutive steps, so that the odd
    step which answers no caller (a client leaving) does not count. Nearly
    deterministic where latency on a shared machine is not; what the middle
    does after it sends (a log line, freeing) or while it waits is not counted."""
    with tempfile.TemporaryDirectory(prefix="openurld-callgrind.") as out:
        middle = start_middle(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/cg", "--dump-instr=no", "--cache-sim=yes",
                               "--compress-strings=no",
                               "--dump-after=recvmsg", "--dump-after=recv", "--dump-before=sendmsg", "--dump-before=send"])
        def dumps():
            return sorted((f for f in os.listdir(out) if f.startswith("cg.")), key=lambda f: int(f.rsplit(".", 1)[1]))
        e.client(*target, arg, 20)
        first = len(dumps())
        e.client(*target, arg, calls)
        files = dumps()[first:]
        stop(middle)
        steps, segment = [], []
        for name in files:
            with open(f"{out}/{name}") as f:
                text = f.read(4096)
            trigger = text.split("desc: Trigger: ", 1)[1].split("\n", 1)[0]
            events = text.split("events: ", 1)[1].split("\n", 1)[0].split()
            cost = (0, 0, 0)
            if "summary: " in text:
                summary = [int(v) for v in text.split("summary: ", 1)[1].split("\n", 1)[0].split()]
                summary += [0] * (len(events) - len(summary))  # trailing zeros are left out
                cost = (summary[events.index("Ir")], summary[events.index("I1mr")], slow_retain_calls(f"{out}/{name}"))
            segment.append((trigger, cost))
            if "send" in trigger:
                reads = [i for i, (t, _) in enumerate(segment) if "recv" in t]
                if reads:  # a send that answers something read: what came after the read
                    after = [c for _, c in segment[reads[0] + 1:]]
                    steps.append(tuple(sum(c[field] for c in after) for field in range(3)))
                segment = []
        def per_call(field):
            return statistics.median(sum(step[field] for step in steps[i:i + sends_per_call]) for i in range(len(steps) - sends_per_call + 1))
        return Counted(per_call(0), per_call(1), per_call(2))


def critical_path_rows(e, rows):
    if QUICK or not shutil.which("valgrind"):
        return
    DISP = ("org.openurld.Dispatcher1", "/org/openurld/Dispatcher1", "org.openurld.Dispatcher1", "OpenURL")
    RELAY = ("org.bench.Relay", "/org/openurld/Dispatcher1", "org.openurld.Dispatcher1", "OpenURL")
    # Names of their own: the latency rows' server may still be running.
    PING = ("org.bench.CountedServer", "/bench", "org.bench.Echo", "Ping")
    REFUSER = ("org.bench.CountedServer", "/org/openurld/Dispatcher1", "org.openurld.Dispatcher1", "OpenURL")
    # The same handler process answers both (it registers with the daemon,
    # so the daemon starts first; the relay finds it by its name).
    helpers = []
    def daemon_and_handlers(vg):
        daemon = e.daemon(wrap=vg)[0]
        helpers.append(start([e.busbench, "handlers", e.address, "0", "org.bench.Handler"]))
        return daemon
    forwarded = critical_path_counts(e, daemon_and_handlers, DISP, "https://bench.example/x", 2)
    relay = critical_path_counts(
        e, lambda vg: start(vg + [e.busbench, "relay", e.address, "org.bench.Relay", "org.bench.Handler"]), RELAY, "https://bench.example/x", 2)
    LAYER = ("org.bench.CountedLayer",) + DISP[1:]
    layer_forwarding = critical_path_counts(
        e, lambda vg: start(vg + [e.layer_floor, e.address, LAYER[0], "forward", "org.bench.Handler"]), LAYER, "https://bench.example/x", 2)
    SWIFT_RELAY = ("org.bench.CountedSwiftRelay",) + RELAY[1:]
    swift_relay = critical_path_counts(
        e, lambda vg: start(vg + [e.swift_relay, e.address, SWIFT_RELAY[0], "org.bench.Handler"]), SWIFT_RELAY, "https://bench.example/x", 2)
    SD_RELAY = ("org.bench.CountedSdRelay",) + RELAY[1:]
    sd_relay = critical_path_counts(
        e, lambda vg: start(vg + [e.sdbench, "relay", e.address, SD_RELAY[0], "org.bench.Handler"]), SD_RELAY, "https://bench.example/x", 2)
    SD_SWIFT = ("org.bench.CountedSdSwift",) + RELAY[1:]
    sd_swift = {shape: critical_path_counts(
        e, lambda vg, shape=shape: start(vg + [e.sd_swift_relay, e.address, SD_SWIFT[0], "org.bench.Handler", shape]), SD_SWIFT,
        "https://bench.example/x", 2) for shape in ("callbacks", "tasks")}
    for helper in helpers:
        stop(helper)
    echo = critical_path_counts(e, lambda vg: start(vg + [e.busbench, "server", e.address, PING[0]]), PING, "x", 1)
    SD_REFUSER = ("org.bench.CountedSdServer",) + REFUSER[1:]
    sd_refuser = critical_path_counts(e, lambda vg: start(vg + [e.sdbench, "server", e.address, SD_REFUSER[0]]), SD_REFUSER, "javascript:void(0)", 1)
    refuser = critical_path_counts(e, lambda vg: start(vg + [e.busbench, "server", e.address, REFUSER[0]]), REFUSER, "javascript:void(0)", 1)
    layer_refusing = critical_path_counts(
        e, lambda vg: start(vg + [e.layer_floor, e.address, LAYER[0], "refuse-in-task"]), LAYER, "javascript:void(0)", 1)
    # With the handler registered, as in the latency rows above.
    refused = critical_path_counts(e, daemon_and_handlers, DISP, "javascript:void(0)", 1)
    for helper in helpers:
        stop(helper)
    helpers.clear()
    # The fallback: a scheme no application claims, looked up on each tree
    # (the freshness checks and the catalog), and a URL it launches the
    # tree's browser for (no handler matches its host).
    lookup_small = critical_path_counts(e, lambda vg: e.daemon(wrap=vg, small_tree=True)[0], DISP, "nothing-handles-this:x", 1)
    lookup_real = critical_path_counts(e, lambda vg: e.daemon(wrap=vg)[0], DISP, "nothing-handles-this:x", 1)
    # One message a launch, the answer: the bench's bus has no systemd user
    # manager, and once the bus has said so (at the first launch) the
    # daemon's connection answers the calls for its environment and for the
    # app's scope itself (they may not start it), without a message.
    launch = critical_path_counts(e, daemon_and_handlers, DISP, "https://fallback.example/x", 1, calls=100)
    for helper in helpers:
        stop(helper)
    note = "callgrind: instructions from each message read to the next sent, per call"
    row(rows, "on the caller's wait: C relay, forwarding", relay.instructions, "instructions", note=note)
    row(rows, "on the caller's wait: sd-bus relay (the C relay on sd-bus)", sd_relay.instructions, "instructions", relay.instructions,
        note="ratio: times the relay's; bench/c/sdbench.c, the same messages")
    row(rows, "on the caller's wait: Swift relay (the C relay in Swift)", swift_relay.instructions, "instructions", relay.instructions,
        note="ratio: times the relay's; bench/SwiftRelay, libdbus alone")
    for shape, what in (("callbacks", "as the C relay runs it"), ("tasks", "a task per call")):
        row(rows, f"on the caller's wait: Swift relay on sd-bus, {what}", sd_swift[shape].instructions, "instructions", sd_relay.instructions,
            note="ratio: times the sd-bus relay's; bench/swift/sd-relay.swift")
    row(rows, "on the caller's wait: D-Bus layer forwarding (no walk)", layer_forwarding.instructions, "instructions", relay.instructions,
        note="ratio: times the relay's; bench/DBusLayer, the daemon's HandleURL call")
    row(rows, "on the caller's wait: openurld, forwarded to one handler", forwarded.instructions, "instructions", relay.instructions,
        note=f"ratio: times the relay's ({forwarded.instructions / layer_forwarding.instructions:.2f}× the D-Bus layer's); deterministic, unlike the latency it explains")
    row(rows, "on the caller's wait: C echo server", echo.instructions, "instructions", note=note)
    row(rows, "on the caller's wait: C server refusing openurld's OpenURL", refuser.instructions, "instructions", echo.instructions, note="ratio: times the echo server's")
    row(rows, "on the caller's wait: sd-bus server refusing openurld's OpenURL", sd_refuser.instructions, "instructions", refuser.instructions,
        note="ratio: times the libdbus server's; bench/c/sdbench.c")
    row(rows, "on the caller's wait: D-Bus layer refusing from a task (no walk)", layer_refusing.instructions, "instructions", refuser.instructions,
        note="ratio: times the C server refusing the same message; bench/DBusLayer")
    row(rows, "on the caller's wait: openurld, refused in the daemon", refused.instructions, "instructions", echo.instructions,
        note=f"ratio: times the echo server's ({refused.instructions / refuser.instructions:.2f}× the C server refusing the same message, "
             f"{refused.instructions / layer_refusing.instructions:.2f}× the D-Bus layer's)")
    row(rows, "on the caller's wait: fallback lookup, 1-file tree", lookup_small.instructions, "instructions", refused.instructions,
        note="a scheme no application claims; ratio: times the refusal's")
    row(rows, "on the caller's wait: fallback lookup, 300-file tree", lookup_real.instructions, "instructions", lookup_small.instructions,
        note="the desktop-sized tree of the latency rows; ratio: times the 1-file tree's")
    row(rows, "fallback launching the browser: work between the call's messages", launch.instructions, "instructions", lookup_real.instructions,
        note="an https URL no handler takes: from reading it to its answer, spawning included (the kernel's work is not counted); "
             "no user manager is on the bench's bus, so no message asks one for the environment or a scope; ratio: times the lookup's")
    # The code a step touches, not only how much of it runs: a middle whose
    # code does not fit the first-level instruction cache fetches it again
    # on every call, and pushes libdbus's out too.
    misses = "callgrind's simulated first-level instruction cache (this host's geometry): lines fetched on the caller's wait, per call"
    for label, counted, base, whose in (
            ("C relay, forwarding", relay, None, ""), ("sd-bus relay", sd_relay, relay, "the relay's"), ("Swift relay", swift_relay, relay, "the relay's"),
            ("Swift relay on sd-bus", sd_swift["callbacks"], sd_relay, "the sd-bus relay's"),
            ("Swift relay on sd-bus, a task per call", sd_swift["tasks"], sd_relay, "the sd-bus relay's"),
            ("D-Bus layer forwarding", layer_forwarding, relay, "the relay's"), ("openurld, forwarded", forwarded, relay, "the relay's"),
            ("C server refusing openurld's OpenURL", refuser, None, ""), ("sd-bus server refusing", sd_refuser, refuser, "the C server's"),
            ("D-Bus layer refusing from a task", layer_refusing, refuser, "the C server's"), ("openurld, refused", refused, refuser, "the C server's")):
        row(rows, f"instruction-cache misses on the wait: {label}", counted.icache_misses, "misses", base.icache_misses if base else None,
            note=f"ratio: times {whose}" if base else misses)
    # A weak reference gives its object a side table for good, and every
    # retain of it then takes the runtime's slow path: nothing says so but
    # this count (the line batch's weak connection cost four a call).
    for label, counted in (("D-Bus layer forwarding", layer_forwarding), ("openurld, forwarded", forwarded),
                           ("D-Bus layer refusing from a task", layer_refusing), ("openurld, refused", refused)):
        row(rows, f"retains on the runtime's slow path on the wait: {label}", counted.slow_retains, "retains", target="0",
            note="calls to incrementSlow per call: retains of objects with a side table (one weak reference to an object gives it one)")


def wire_format_rows(e, rows):
    """bench/WireFormat: the four messages of a forwarded call (OpenURL read,
    HandleURL written, its reply read, the answer written), through libdbus
    the way the layer uses it and through WireFormat, from the same bytes to
    the same values. Timed in alternating rounds (each run of the program
    prints the median of five passes) and, unless --quick, counted under
    callgrind: a run of no iterations subtracted from one of 5 x 1 000."""
    program = f"{e.bin}/wire-format-benchmark"
    iterations = "2000" if QUICK else "20000"
    times = {"libdbus": [], "swift": []}
    for _ in range(ROUNDS):
        for mode in times:
            times[mode].append(float(subprocess.check_output([program, mode, iterations], text=True)))
    ratio, spread = in_rounds(times["swift"], times["libdbus"])
    what = "a forwarded call's four messages read and written"
    row(rows, f"{what}: libdbus, as the layer uses it", statistics.median(times["libdbus"]) / 1000, "µs",
        note="bench/WireFormat: OpenURL(s) read, HandleURL(s a{sv}) made, its (ss) reply read, (b) made; in-process, no bus")
    row(rows, f"{what}: WireFormat, the format in Swift", statistics.median(times["swift"]) / 1000, "µs", ratio=ratio,
        note=f"ratio: times libdbus's, median of the rounds' own ratios; {spread}")
    if QUICK or not shutil.which("valgrind"):
        return
    counted = {}
    with tempfile.TemporaryDirectory(prefix="openurld-wire.") as out:
        for mode in times:
            totals = []
            for n in ("0", "1000"):
                sh(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/cg.{mode}.{n}", program, mode, n],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                text = open(f"{out}/cg.{mode}.{n}").read()
                totals.append(int(re.search(r"^(?:summary|totals): (\d+)", text, re.M).group(1)))
            counted[mode] = (totals[1] - totals[0]) / 5000
    row(rows, f"{what}, counted: libdbus", counted["libdbus"], "instructions", note="callgrind, per four messages")
    row(rows, f"{what}, counted: WireFormat", counted["swift"], "instructions", counted["libdbus"], note="ratio: times libdbus's")


def mapped_after(log, count, deadline=30):
    """The CLOCK_MONOTONIC stamp of the count-th "mapped" line of log, once it is written."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if os.path.exists(log):
            stamps = [float(l.split()[1]) for l in open(log) if l.startswith("mapped ")]
            if len(stamps) >= count:
                return stamps[count - 1]
        time.sleep(0.0005)
    raise SystemExit(f"bench: no window was mapped ({log})")


def chooser_rows(e, rows):
    if not shutil.which("Xvfb") or not os.path.exists(f"{e.bin}/openurld-chooser"):
        row(rows, "chooser rows skipped", 0, "", note="Xvfb or openurld-chooser missing")
        return
    d = e.dir
    reader, writer = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(writer), "-nolisten", "tcp", "-noreset", "-screen", "0", "1024x768x24"],
                            pass_fds=[writer], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    started.append(xvfb)
    os.close(writer)
    number = b""
    while not number.endswith(b"\n"):  # Xvfb writes the display number once it accepts clients
        chunk = os.read(reader, 16)
        if not chunk:
            raise SystemExit("bench: Xvfb did not start")
        number += chunk
    os.close(reader)
    display = ":" + number.decode().strip()
    env = dict(e.env, DISPLAY=display, GTK_A11Y="none", XDG_DATA_DIRS=e.env["XDG_DATA_DIRS"] + ":/usr/share")
    runs = 3 if QUICK else 10
    # The floor: exec of the C window to its map.
    gtkwindow = f"{d}/bin/gtkwindow"
    sh(["gcc", "-O2", "-o", gtkwindow, f"{ROOT}/bench/c/gtkwindow.c"] +
       subprocess.check_output(["pkg-config", "--cflags", "--libs", "gtk4"], text=True).split())
    def window_floor():
        """The C window's exec to its map, in ms."""
        t0 = time.monotonic()
        done = subprocess.run([gtkwindow], env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"bench: {gtkwindow} failed on {display}: {done.stderr}")
        return (float(done.stdout.split()[1]) - t0) * 1000
    # The daemon with one Ask= rule, on a bus that activates the chooser.
    services = f"{d}/services"
    os.makedirs(services, exist_ok=True)
    log = f"{d}/chooser.log"
    def service(idle):
        with open(f"{services}/org.openurld.Chooser1.service", "w") as f:
            f.write(f"[D-BUS Service]\nName=org.openurld.Chooser1\n"
                    f"Exec=/bin/sh -c 'exec {e.bin}/openurld-chooser --service --idle-exit {idle} 2>>{log}'\n")
    service("0.2")
    rules_dir = f"{d}/config/openurld/rules.d"
    os.makedirs(rules_dir, exist_ok=True)
    with open(f"{rules_dir}/90-ask.rules", "w") as f:
        f.write("[Rule ask]\nHosts=ask.example\nAsk=\n")
    conf = open(f"{d}/bus.conf").read().replace("<policy", f"<servicedir>{services}</servicedir><policy").replace(f"{d}/bus<", f"{d}/chooser-bus<")
    with open(f"{d}/chooser-bus.conf", "w") as f:
        f.write(conf)
    bus = subprocess.Popen(["dbus-daemon", f"--config-file={d}/chooser-bus.conf", "--nofork", "--print-address=1"],
                           env=dict(env, OPENURLD_CHOOSER_TRACE="1"), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    started.append(bus)
    address = bus.stdout.readline().strip()
    env["DBUS_SESSION_BUS_ADDRESS"] = address
    daemon = subprocess.Popen([f"{e.bin}/front/bin/openurld", "--address", address], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    started.append(daemon)
    def owned(name):
        out = subprocess.run(["dbus-send", f"--bus={address}", "--print-reply", "--dest=org.freedesktop.DBus", "/",
                              "org.freedesktop.DBus.NameHasOwner", f"string:{name}"], capture_output=True, text=True).stdout
        return "true" in out
    while not owned("org.openurld.Dispatcher1"):
        time.sleep(0.001)
    shown = [0]
    def ask():
        """One OpenURL that the chooser asks about; its time to the mapped window; then Esc."""
        t0 = time.monotonic()
        client = subprocess.Popen([e.busbench, "client", address, "org.openurld.Dispatcher1", "/org/openurld/Dispatcher1",
                                   "org.openurld.Dispatcher1", "OpenURL", f"https://ask.example/{shown[0]}", "1"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shown[0] += 1
        stamp = mapped_after(log, shown[0])
        # An answered window may still be on screen for a moment while it is
        # destroyed: Escape goes to the new one.
        for _ in range(200):
            found = subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--name", "^Open Link$"], env=env,
                                   capture_output=True, text=True, timeout=20).stdout.split()
            new = [w for w in found if w != answered[0]]
            if new:
                break
        else:
            raise SystemExit("bench: no new chooser window appeared")
        answered[0] = new[0]
        subprocess.run(["xdotool", "windowfocus", "--sync", new[0], "key", "Escape"],
                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20)
        client.wait(timeout=20)
        return (stamp - t0) * 1000
    answered = [None]  # the X window last answered (IDs repeat across processes)
    # Cold runs and the floor's in rounds, each round one of each, so that
    # drift over the rows (the machine warming, other load) falls on both;
    # the ratio is the median of the rounds' own. One of each first,
    # unmeasured: the page cache then holds both programs' libraries, as it
    # does on a desktop in use.
    window_floor()
    ask()
    cold, floors = [], []
    for _ in range(runs):
        while owned("org.openurld.Chooser1"):  # the last one idles out first
            time.sleep(0.01)
        answered[0] = None  # gone with its process
        floors.append(window_floor())
        cold.append(ask())
    floor = statistics.median(floors)
    cold_ratio, cold_spread = in_rounds(cold, floors)
    service("0")  # warm: started once, then kept
    while owned("org.openurld.Chooser1"):
        time.sleep(0.01)
    answered[0] = None
    ask()
    warm = [ask() for _ in range(runs)]
    row(rows, "smallest GTK 4 window in C: exec → mapped (floor)", floor, "ms")
    row(rows, "chooser cold (D-Bus activated): OpenURL → window mapped", statistics.median(cold), "ms", floor, "≤ 1.5",
        note=cold_spread, ratio=cold_ratio)
    row(rows, "chooser warm (running): OpenURL → window mapped", statistics.median(warm), "ms", note="target ≤ 50 ms")


def machine():
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown CPU")
    return f"{os.cpu_count()} cores, {model}"


if __name__ == "__main__":
    run_as_a_user()
    try:
        t0 = time.monotonic()
        rows = main()
    finally:
        cleanup()
    elapsed = time.monotonic() - t0
    lines = ["| measure | value | ratio to floor | target |", "| --- | ---: | ---: | --- |"]
    for r in rows:
        ratio = "" if r["ratio"] is None else f"{r['ratio']:.2f}"
        lines.append(f"| {r['measure']} | {r['value']:,.2f} {r['unit']} | {ratio} | {r['target'] or ''}{(' ' + r['note']) if r['note'] else ''} |")
    header = (f"Run on {time.strftime('%Y-%m-%d', time.gmtime())}, {machine()}, command "
              f"`bench/run{' --quick' if QUICK else ''}`, {elapsed:.0f} s. Latencies: medians (p50) or p99 of "
              f"sequential calls; launch rows: medians of {LAUNCHES} launches.")
    table = "\n".join(lines)
    print(header + "\n\n" + table)
    out = "results-quick" if QUICK else "results"
    with open(f"{ROOT}/bench/{out}.json", "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d"), "machine": machine(), "quick": QUICK, "rows": rows}, f, indent=1)
    if not QUICK:
        # The table in bench/README.md is this run's, between the markers.
        readme = f"{ROOT}/bench/README.md"
        text = open(readme).read()
        begin, end = "<!-- results:begin -->", "<!-- results:end -->"
        before, rest = text.split(begin, 1)
        after = rest.split(end, 1)[1]
        with open(readme, "w") as f:
            f.write(before + begin + "\n" + header + "\n\n" + table + "\n" + end + after)
