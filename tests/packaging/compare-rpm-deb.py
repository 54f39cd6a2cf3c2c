#!/usr/bin/env python3
"""The RPMs hold what the Debian packages and the stage hold.

Fedora and Debian lay files out differently; this maps Fedora's paths onto
Debian's (/usr/lib64 -> /usr/lib/<multiarch>, site-packages ->
dist-packages, /usr/lib/systemd -> /lib/systemd, ...) and then checks:
  - every file of a .deb is in the RPM that Fedora's split gives it, and
    every file of an RPM is in some .deb (documentation aside: both
    distributions place it their own way);
  - every file of the stage is in an RPM;
  - each RPM provides the shared-library sonames its Debian counterparts
    ship, and every soname of ours an RPM requires is provided by one of
    our RPMs (the Requires/Provides graph is closed, as the Debian one).

The .debs are those of PACKAGES_DIR/bookworm (make deb builds one set per
suite; Debian 12's has the most names of its own to map), or of
PACKAGES_DIR itself when it has no such folder.

usage: compare-rpm-deb.py PACKAGES_DIR [STAGE]
"""
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stage_coverage  # noqa: E402

MA = stage_coverage.MULTIARCH

# Debian package -> the RPMs Fedora's split puts its files in
SPLIT = {
    "rdma-core": ["rdma-core", "iwpmd"],
    "ibacm": ["ibacm"],
    "ibverbs-providers": ["libibverbs"],
    "libibverbs1": ["libibverbs"],
    "ibverbs-utils": ["libibverbs-utils"],
    "libibverbs-dev": ["rdma-core-devel"],
    "libibumad-dev": ["rdma-core-devel"],
    "librdmacm-dev": ["rdma-core-devel", "librdmacm"],  # rsocket.7
    "libibmad-dev": ["rdma-core-devel"],
    "libibnetdisc-dev": ["rdma-core-devel"],
    "libibumad3": ["libibumad"],
    "librdmacm1": ["librdmacm"],
    "librdmacm1t64": ["librdmacm"],
    "rdmacm-utils": ["librdmacm-utils"],
    "srptools": ["srp_daemon"],
    "python3-pyverbs": ["python3-pyverbs"],
    "infiniband-diags": ["infiniband-diags"],
    "libibmad5": ["infiniband-diags"],
    "libibnetdisc5": ["infiniband-diags"],
    "libibnetdisc5t64": ["infiniband-diags"],
    # Debian only: the apt pin (the RPMs' Epoch does its work for dnf)
    "rdma-core-tdshare-pin": [],
    "mlx5emu": ["mlx5emu"],
    "perftest-ext": ["perftest-ext"],
}

# Fedora path prefix -> Debian path prefix, first match wins
PATHS = [
    # the launcher looks for its preload library in <prefix>/lib/mlx5emu
    # first (Debian), then in the libdir compiled in (Fedora: lib64)
    (r"^/usr/lib64/mlx5emu/", "/usr/lib/mlx5emu/"),
    (r"^/usr/lib64/python3\.[0-9]+/site-packages/", "/usr/lib/python3/dist-packages/"),
    (r"^/usr/lib64/", "/usr/lib/%s/" % MA),
    (r"^/usr/lib/systemd/", "/lib/systemd/"),
    (r"^/usr/lib/udev/", "/lib/udev/"),
    (r"^/usr/libexec/", "/usr/lib/"),
    (r"^/usr/share/perl5/vendor_perl/", "/usr/share/perl5/"),
    (r"^(/usr/sbin/.*)\.(pl|sh)$", r"\1"),
]
# Files the distributions place their own way, or that only one has:
# documentation and licences, rpm's build-id links, Debian's lintian
# overrides, the sysvinit script Debian keeps for iwpmd, Debian's
# srptools.service alias, RHEL-only helpers, and the static libraries
# (Fedora builds them only --with static).
IGNORED = re.compile(r"^(/usr/lib/[^/]+/lib[^/]+\.a$|/usr/share/doc/|/usr/share/licenses/|/usr/lib/\.build-id/"
                     r"|/usr/share/lintian/|/etc/init\.d/|/usr/sbin/run_srp_daemon$"
                     r"|/lib/systemd/system/srptools\.service$"
                     r"|/etc/apt/|/usr/bin/tdshare-way-back$|/usr/share/man/man1/tdshare-way-back\.1)")


def debian_path(path):
    for pattern, repl in PATHS:
        if re.search(pattern, path):
            path = re.sub(pattern, repl, path)
            break
    return re.sub(r"\.(gz|xz|bz2|zst)$", "", path)


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def rpm_query(path, fmt):
    return run("rpm", "-qp", "--nodigest", "--nosignature", "--qf", fmt, path)


def rpm_contents(path):
    """files and symlinks of an RPM, Debian paths"""
    out = rpm_query(path, "[%{FILEMODES:perms} %{FILENAMES}\n]")
    return {debian_path(line.split(" ", 1)[1]) for line in out.splitlines()
            if line and line[0] in "-l"}


def deb_contents(path):
    listing = run("dpkg-deb", "-c", path)
    files = set()
    for line in listing.splitlines():
        fields = line.split()
        if fields[0][0] in "-l":
            name = fields[5][1:]  # ./usr/... -> /usr/...
            files.add(re.sub(r"\.(gz|xz|bz2|zst)$", "", name))
    return files


def main():
    out = sys.argv[1]
    stage = sys.argv[2] if len(sys.argv) > 2 else None
    fail = []
    rpms = {rpm_query(p, "%{NAME}"): p for p in glob.glob(os.path.join(out, "*.rpm"))
            if not p.endswith(".src.rpm") and "-debug" not in os.path.basename(p)}
    debdir = os.path.join(out, "bookworm")
    if not os.path.isdir(debdir):
        debdir = out
    debs = {run("dpkg-deb", "-f", p, "Package").strip(): p
            for p in glob.glob(os.path.join(debdir, "*.deb"))}
    if not rpms or not debs:
        print("FAIL: need both the .debs (make deb) and the RPMs (make rpm) in %s" % out)
        return 1
    rpm_files = {n: rpm_contents(p) for n, p in rpms.items()}
    deb_files = {n: deb_contents(p) for n, p in debs.items()}
    all_rpm = set().union(*rpm_files.values())
    all_deb = set().union(*deb_files.values())

    for deb, files in sorted(deb_files.items()):
        if deb not in SPLIT:
            fail.append("%s: no Fedora counterpart is known (SPLIT)" % deb)
            continue
        missing = [f for f in sorted(files) if not IGNORED.match(f)
                   and not any(f in rpm_files.get(r, ()) for r in SPLIT[deb])]
        for f in missing:
            where = [r for r, fs in rpm_files.items() if f in fs]
            fail.append("%s of %s is %s" % (f, deb, "in RPM %s, not in %s" %
                        (where[0], "/".join(SPLIT[deb])) if where else "in no RPM"))
    for rpm, files in sorted(rpm_files.items()):
        for f in sorted(files - all_deb):
            if not IGNORED.match(f):
                fail.append("%s of RPM %s is in no .deb" % (f, rpm))

    if stage:
        for root, dirs, files in os.walk(stage):
            for name in files:
                rel = os.path.relpath(os.path.join(root, name), stage)
                cands = ["/" + p for p in stage_coverage.debian_paths(rel)]
                if not any(c in all_rpm or debian_path(c) in all_rpm for c in cands):
                    if not IGNORED.match(cands[0]) and rel.split("/")[-1] not in (
                            "ibacm", "srpd", "srp_daemon.sh", "run_srp_daemon"):
                        fail.append("stage file %s is in no RPM" % rel)

    # sonames: what the RPMs provide vs what the .debs ship
    soname = re.compile(r"^(lib[^ ()]+\.so\.[0-9]+)\(")
    provided = {}
    for rpm, path in rpms.items():
        for line in rpm_query(path, "[%{PROVIDES}\n]").splitlines():
            m = soname.match(line)
            if m:
                provided.setdefault(m.group(1), rpm)
    shipped = {os.path.basename(f): d for d, fs in deb_files.items() for f in fs
               if re.search(r"/lib[^/]+\.so\.[0-9]+$", f)
               and not re.search(r"/(libibverbs|rsocket)/", f)}  # dlopen/LD_PRELOAD
    for so, deb in sorted(shipped.items()):
        if so not in provided:
            fail.append("%s (in %s) is provided by no RPM" % (so, deb))
        elif provided[so] not in SPLIT.get(deb, []):
            fail.append("%s is provided by RPM %s, Debian ships it in %s" % (so, provided[so], deb))
    ours = set(shipped)
    for rpm, path in rpms.items():
        for line in rpm_query(path, "[%{REQUIRES}\n]").splitlines():
            m = soname.match(line)
            if m and m.group(1) in ours and m.group(1) not in provided:
                fail.append("RPM %s requires %s, which no RPM of ours provides" % (rpm, m.group(1)))

    for f in fail:
        print("FAIL: " + f)
    if not fail:
        print("%d RPMs and %d .debs hold the same %d files (documentation aside); "
              "%d sonames provided alike; the stage is in the RPMs"
              % (len(rpms), len(debs), len(all_deb), len(shipped)))
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
