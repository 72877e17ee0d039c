#!/usr/bin/env python3
"""The daemon's layers hold (daemon/meson.build): each folder sees only itself and the
folders below it, at compile time and at link time.

- an include of a higher layer does not compile: for every pair of layers, a file compiled
  with the flags of a real file of the first (from compile_commands.json) includes a header
  of the second; it must compile when the second is the same layer or below, and fail with
  "No such file" when it is above (the deliberate upward include of issue 25);
- no layer's library calls up: no undefined symbol of libnmL.a is defined by the library of
  a higher layer (nm);
- every .c and .h of daemon/ is in a layer folder (main.c and pktgen-run.c at the top);
- the README's layout section names the layers in the same order as daemon/meson.build;
- the README's "Adding a source / tuning knob / benchmark driver" paragraphs stay true:
  every file they name exists, every table they name ("`TABLE` in `FILE`") is in that file,
  and every entry of each of the three tables is defined in the one file the paragraph
  says (&source_X_ops in sample/source-X.c, &knob_X in tune/profile-X.c, &driver_X in
  run/driver-X.c, each driver named in test-start's usage).

Usage: test_layers.py BUILD_DIR SOURCE_DIR. Ends with "N passed, M failed".
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

BUILD, SRC = sys.argv[1], sys.argv[2]
DAEMON = os.path.join(SRC, "daemon")


def layers():
    """The layers in order, from daemon/meson.build's daemon_layers."""
    with open(os.path.join(DAEMON, "meson.build")) as f:
        m = re.search(r"daemon_layers = \[([^\]]*)\]", f.read())
    return re.findall(r"'([a-z]+)'", m.group(1))


LAYERS = layers()


def compile_command(layer):
    """The compiler's argv for one .c file of layer, from compile_commands.json."""
    with open(os.path.join(BUILD, "compile_commands.json")) as f:
        cmds = json.load(f)
    for c in cmds:
        if os.path.normpath(os.path.join(c["directory"], c["file"])).startswith(
                os.path.join(DAEMON, layer) + os.sep) and "libnm" + layer in c["output"]:
            return c["directory"], shlex.split(c["command"])
    raise AssertionError("no compile command for a file of %s/" % layer)


def a_header(layer):
    return sorted(f for f in os.listdir(os.path.join(DAEMON, layer)) if f.endswith(".h"))[0]


def try_include(layer, header):
    """Compile '#include "header"' with the flags of a file of layer: (ok, stderr)."""
    cwd, argv = compile_command(layer)
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "probe.c")
        with open(src, "w") as f:
            f.write('#include "%s"\nint probe(void);\nint probe(void) { return 0; }\n' % header)
        out = []
        skip = False
        for a in argv:
            if skip:
                skip = False
                continue
            if a in ("-o", "-MF", "-MQ", "-MT"):
                skip = True
                continue
            if a == "-c" or a.endswith(".c") or a in ("-MD",):
                continue
            out.append(a)
        out += ["-c", src, "-o", os.path.join(d, "probe.o")]
        r = subprocess.run(out, cwd=cwd, capture_output=True, text=True, timeout=120)
        return r.returncode == 0, r.stderr


def test_upward_include_does_not_compile():
    checked = 0
    for i, low in enumerate(LAYERS):
        for j, high in enumerate(LAYERS):
            h = a_header(high)
            ok, err = try_include(low, h)
            if j <= i:
                assert ok, "%s/ cannot include %s of %s/ (below or same): %s" % (low, h, high,
                                                                                  err[-500:])
            else:
                assert not ok and "No such file" in err, \
                    "%s/ includes %s of %s/ (above) and it compiles" % (low, h, high)
            checked += 1
    print("%d layer pairs: includes of a higher layer fail, the others compile" % checked)


def defined_and_undefined(lib):
    r = subprocess.run(["nm", "-A", lib], capture_output=True, text=True, check=True)
    defs, undef = set(), set()
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRVW":
            defs.add(parts[2])
        elif len(parts) == 3 and parts[1] == "U":
            undef.add((parts[0].rsplit(":", 1)[0].split(":")[-1], parts[2]))
    return defs, undef


def test_no_layer_calls_up():
    libs = {l: os.path.join(BUILD, "daemon", "libnm%s.a" % l) for l in LAYERS}
    info = {l: defined_and_undefined(p) for l, p in libs.items()}
    bad = []
    for i, low in enumerate(LAYERS):
        for obj, sym in info[low][1]:
            for high in LAYERS[i + 1:]:
                if sym in info[high][0]:
                    bad.append("%s/%s calls %s of %s/" % (low, obj, sym, high))
    assert not bad, "calls up a layer:\n  " + "\n  ".join(sorted(bad))
    print("no call from a layer's library into a higher one (%d libraries)" % len(libs))


def test_every_file_in_a_layer():
    loose = [f for f in os.listdir(DAEMON) if f.endswith((".c", ".h"))
             and f not in ("main.c", "pktgen-run.c")]
    assert not loose, "daemon/ files outside a layer folder: %s" % loose
    folders = sorted(d for d in os.listdir(DAEMON) if os.path.isdir(os.path.join(DAEMON, d)))
    assert folders == sorted(LAYERS), (folders, LAYERS)


def test_readme_names_the_layers_in_order():
    with open(os.path.join(SRC, "README.md")) as f:
        text = f.read()
    found = re.findall(r"^\s*- `daemon/([a-z]+)/`", text, re.M)
    assert found == LAYERS, "README's layout lists %s, daemon/meson.build %s" % (found, LAYERS)


def adding_paragraphs():
    """{"source": text, "tuning knob": text, "benchmark driver": text} from the README."""
    with open(os.path.join(SRC, "README.md")) as f:
        text = f.read()
    out = {}
    for m in re.finditer(r"\*\*Adding an? ([a-z ]+)\*\*(.*?)(?=\n\n)", text, re.S):
        out[m.group(1)] = " ".join(m.group(2).split())
    return out


def table_entries(path, table, pattern):
    """The names in the initializer of table (up to its closing brace) in path."""
    with open(os.path.join(SRC, path)) as f:
        text = f.read()
    start = text.index(table)
    body = text[text.index("{", start):text.index("};", start)]
    return re.findall(pattern, body)


def test_adding_paragraphs_are_true():
    paras = adding_paragraphs()
    assert sorted(paras) == ["benchmark driver", "source", "tuning knob"], sorted(paras)
    checked = 0
    for what, text in paras.items():
        for path in re.findall(r"`((?:daemon|proto|man|tests)/[^`<>]+)`", text):
            assert os.path.exists(os.path.join(SRC, path)), \
                "README, adding a %s: %s does not exist" % (what, path)
            checked += 1
        for table, path in re.findall(r"`([^`]+)` in `((?:daemon|proto)/[^`]+)`", text):
            name = re.sub(r"\[\]$", "", table)
            with open(os.path.join(SRC, path)) as f:
                body = f.read()
            assert re.search(r"\b%s\b" % re.escape(name), body), \
                "README, adding a %s: no %s in %s" % (what, table, path)
            checked += 1
    for table, path, pat, file_of in (
            ("all_sources[]", "daemon/sample/sampler.c", r"&source_([a-z0-9_]+)_ops",
             "daemon/sample/source-%s.c"),
            ("knobs[]", "daemon/tune/knob.c", r"&knob_([a-z0-9_]+)", "daemon/tune/profile-%s.c"),
            ("drivers[]", "daemon/run/driver.c", r"&driver_([a-z0-9_]+)",
             "daemon/run/driver-%s.c")):
        names = table_entries(path, table.rstrip("[]") + "[]", pat)
        assert names, "no entries found in %s of %s" % (table, path)
        for n in names:
            f = os.path.join(SRC, file_of % n.replace("_", "-"))
            assert os.path.exists(f), "%s's %s has no file %s" % (table, n, f)
            with open(f) as fh:
                assert re.search(r"^const struct \w+ (source_%s_ops|knob_%s|driver_%s) = "
                                 % (n, n, n), fh.read(), re.M), "%s does not define %s" % (f, n)
            checked += 1
    with open(os.path.join(SRC, "proto", "commands.c")) as f:
        usage = re.search(r"\[--driver ([a-z0-9|]+)\]", f.read()).group(1).split("|")
    drivers = table_entries("daemon/run/driver.c", "drivers[]", r"&driver_([a-z0-9_]+)")
    assert sorted(usage) == sorted(drivers), (usage, drivers)
    print("%d facts of the README's adding paragraphs checked" % checked)


TESTS = [test_upward_include_does_not_compile, test_no_layer_calls_up,
         test_every_file_in_a_layer, test_readme_names_the_layers_in_order,
         test_adding_paragraphs_are_true]


def main():
    passed = failed = 0
    for t in TESTS:
        try:
            t()
            print("ok   %s" % t.__name__)
            passed += 1
        except AssertionError as e:
            print("FAIL %s: %s" % (t.__name__, e))
            failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
