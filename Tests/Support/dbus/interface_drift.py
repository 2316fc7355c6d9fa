#!/usr/bin/python3
"""Compares interfaces/*.xml with what a running schedd serves (its Introspect output, which sd-bus
builds from Sources/CSchedBus/vtable.c, the source of truth) and says exactly what to change.

    interface_drift.py --address ADDR [--path /org/schedd/Scheduler1] FILE.xml...

For every interface in FILE, each method and signal must exist in the daemon with the same arguments
(type, name and direction, in order) and the same annotations (NoReply, Deprecated, ...), nothing the
daemon serves may be missing from FILE, and every method and signal must carry a non-empty
org.gtk.GDBus.DocString that does not start with TODO. On drift it prints one block per difference
with the XML to paste (a new member comes with a TODO doc string to replace) and exits 1; exit 0
prints "in step". Exit 2: the daemon cannot be asked or FILE does not parse.
"""

import argparse
import subprocess
import sys
import xml.etree.ElementTree as ET
from xml.sax.saxutils import quoteattr

DOC = "org.gtk.GDBus.DocString"


def members(interface, with_docs):
    """{(kind, name): (args, annotations, doc)} of an <interface> element."""
    out = {}
    for element in interface:
        if element.tag not in ("method", "signal"):
            continue
        args = tuple((a.get("type"), a.get("name") or "",
                      a.get("direction", "in" if element.tag == "method" else "out"))
                     for a in element.findall("arg"))
        annotations = tuple(sorted((a.get("name"), a.get("value")) for a in element.findall("annotation")
                                   if a.get("name") != DOC))
        doc = next((a.get("value") for a in element.findall("annotation") if a.get("name") == DOC), None)
        out[(element.tag, element.get("name"))] = (args, annotations, doc if with_docs else None)
    return out


def render(kind, name, args, annotations, doc):
    lines = ['    <%s name="%s">' % (kind, name),
             '      <annotation name="%s" value=%s/>' % (DOC, quoteattr(doc or "TODO: what it does, its JSON shapes, its errors"))]
    for type_, arg, direction in args:
        if kind == "method":
            lines.append('      <arg type="%s" name="%s" direction="%s"/>' % (type_, arg, direction))
        else:
            lines.append('      <arg type="%s" name="%s"/>' % (type_, arg))
    for key, value in annotations:
        lines.append('      <annotation name="%s" value=%s/>' % (key, quoteattr(value)))
    lines.append("    </%s>" % kind)
    return "\n".join(lines)


def signature(args):
    return ", ".join("%s %s %s" % (d, t, n) for t, n, d in args) or "no arguments"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", required=True)
    parser.add_argument("--path", default="/org/schedd/Scheduler1")
    parser.add_argument("files", nargs="+")
    opts = parser.parse_args()
    result = subprocess.run(["busctl", "--address=" + opts.address, "--json=short", "call", "org.schedd.Scheduler1",
                             opts.path, "org.freedesktop.DBus.Introspectable", "Introspect"],
                            capture_output=True, text=True)
    if result.returncode != 0:
        print("interface_drift: Introspect failed: " + result.stderr.strip(), file=sys.stderr)
        return 2
    import json
    served = {i.get("name"): i for i in ET.fromstring(json.loads(result.stdout)["data"][0]).findall("interface")}
    problems = []
    for path in opts.files:
        try:
            described = ET.parse(path).getroot().findall("interface")
        except (OSError, ET.ParseError) as error:
            print("interface_drift: %s: %s" % (path, error), file=sys.stderr)
            return 2
        for interface in described:
            name = interface.get("name")
            where = '%s, inside <interface name="%s">' % (path, name)
            if name not in served:
                problems.append("%s: the daemon serves no interface %s at %s (renamed or removed in "
                                "Sources/CSchedBus/vtable.c?): remove the file or fix its name" % (path, name, opts.path))
                continue
            ours, theirs = members(interface, True), members(served[name], False)
            interface_doc = next((a.get("value") for a in interface.findall("annotation") if a.get("name") == DOC), "")
            if not interface_doc.strip() or interface_doc.startswith("TODO"):
                problems.append("%s: the interface needs a %s annotation saying what it is" % (where, DOC))
            for key in theirs:
                if key not in ours:
                    args, annotations, _ = theirs[key]
                    problems.append("%s: %s %s(%s) is served (Sources/CSchedBus/vtable.c) but not described; add:\n%s"
                                    % (where, key[0], key[1], signature(args), render(key[0], key[1], args, annotations, None)))
            for key, (args, annotations, doc) in ours.items():
                if key not in theirs:
                    problems.append("%s: %s %s is described but the daemon does not serve it (removed from "
                                    "Sources/CSchedBus/vtable.c?): delete its <%s> element" % (where, key[0], key[1], key[0]))
                    continue
                served_args, served_annotations, _ = theirs[key]
                if args != served_args or annotations != served_annotations:
                    problems.append("%s: %s %s differs — file: (%s) %s; daemon: (%s) %s; replace it with:\n%s"
                                    % (where, key[0], key[1], signature(args), list(annotations), signature(served_args),
                                       list(served_annotations), render(key[0], key[1], served_args, served_annotations, doc)))
                if not doc or not doc.strip() or doc.startswith("TODO"):
                    problems.append("%s: %s %s needs its %s (what it does, its JSON shapes, its errors; README's "
                                    "method table)" % (where, key[0], key[1], DOC))
    for problem in problems:
        print("DRIFT " + problem)
    if problems:
        print("interface_drift: %d difference(s) between %s and the daemon" % (len(problems), ", ".join(opts.files)))
        return 1
    print("interface_drift: in step: " + ", ".join(opts.files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
