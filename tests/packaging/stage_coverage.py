#!/usr/bin/env python3
"""Every file installed into the stage belongs to a Debian package.

The stage (build/stage) holds what the superbuild installs; the Debian
packages pick files by the patterns of debian/*.install, from a tree laid
out as Debian installs it. A staged file is covered when one of its
possible Debian paths matches a pattern of some package, or is listed in
debian/not-installed. A file of the stage that no package ships would be
lost to whoever installs the packages instead of using the stage.

usage: stage_coverage.py STAGE DEBIAN_DIR
"""
import fnmatch
import glob
import os
import re
import sys

MULTIARCH = "x86_64-linux-gnu"


def expand_braces(pattern):
    """a{b,c}d -> [abd, acd], as dh_install's glob does"""
    m = re.search(r"\{([^{}]*)\}", pattern)
    if not m:
        return [pattern]
    out = []
    for alt in m.group(1).split(","):
        out += expand_braces(pattern[:m.start()] + alt + pattern[m.end():])
    return out


def package_patterns(debian):
    """[(package, pattern)] from debian/*.install and *.manpages, plus
    not-installed"""
    found = []
    for path in sorted(glob.glob(os.path.join(debian, "*.install"))):
        package = os.path.basename(path)[:-len(".install")]
        for line in open(path):
            fields = line.split("#")[0].split()
            if fields:
                found += [(package, p) for p in expand_braces(fields[0])]
    # dh_installman puts a page of debian/*.manpages into its section
    for path in sorted(glob.glob(os.path.join(debian, "*.manpages"))):
        package = os.path.basename(path)[:-len(".manpages")]
        for line in open(path):
            fields = line.split("#")[0].split()
            for page in fields:
                name = os.path.basename(page)
                section = name.rsplit(".", 1)[-1][:1]
                found.append((package,
                              "usr/share/man/man%s/%s" % (section, name)))
    path = os.path.join(debian, "not-installed")
    if os.path.exists(path):
        for line in open(path):
            fields = line.split("#")[0].split()
            if fields:
                found.append(("(not-installed)", fields[0]))
    return found


def debian_paths(rel):
    """where Debian's build puts a file the stage has at REL"""
    if rel.startswith("lib/python3/"):
        return ["usr/" + rel]
    if rel.startswith("etc/"):
        return [rel]
    if rel.startswith("libexec/"):
        return ["usr/lib/" + rel[len("libexec/"):]]
    if rel.startswith("lib/"):
        rest = rel[len("lib/"):]
        # libraries go to the multiarch directory; systemd units, udev
        # rules and private directories stay where they are
        return ["usr/lib/%s/%s" % (MULTIARCH, rest), "usr/" + rel, rel]
    if rel.startswith("sbin/"):
        # DISTRO_FLAVOUR=Debian installs the diagnostic scripts without
        # their .pl/.sh suffix
        return ["usr/" + rel, "usr/" + re.sub(r"\.(pl|sh)$", "", rel)]
    return ["usr/" + rel]


def matches(path, pattern):
    pattern = pattern.rstrip("/")
    # a pattern naming a directory ships everything below it
    return (fnmatch.fnmatchcase(path, pattern) or
            fnmatch.fnmatchcase(path, pattern + "/*"))


def main():
    stage, debian = sys.argv[1:3]
    patterns = package_patterns(debian)
    lost = []
    count = 0
    for root, dirs, files in os.walk(stage):
        for name in files + [d for d in dirs
                             if os.path.islink(os.path.join(root, d))]:
            rel = os.path.relpath(os.path.join(root, name), stage)
            count += 1
            if not any(matches(p, pat) for p in debian_paths(rel)
                       for _, pat in patterns):
                lost.append(rel)
    for rel in sorted(lost):
        print("FAIL: %s/%s is in no package (debian/*.install) and not in "
              "debian/not-installed" % (stage, rel))
    if not count:
        print("FAIL: %s is empty" % stage)
        return 1
    if lost:
        return 1
    print("all %d files of the stage belong to a package" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
