#!/usr/bin/env bash
# The documentation site (`make docs`): DocC for SocketIO, SocketIOConcurrency and EventSource,
# built from symbol graphs with the toolchain's own tools, no plugin.
#
#   1. every ```swift block of the catalogs' pages and of README.md must appear verbatim
#      (whitespace, semicolons and trailing commas aside) in Tests/DocExamplesTests, which the test build and the iOS check compile;
#      a block whose first line is `// Package.swift` (a manifest excerpt) or starts with
#      `// Not compiled:` (code of another package, e.g. the "before" side of a migration) is
#      exempt and says so where it is shown;
#   2. `swift package dump-symbol-graph` builds the debug configuration (reusing .build/debug)
#      and extracts each module's public symbol graph;
#   3. every public symbol declared in the three modules' sources must have a doc comment of
#      its own (one inherited from a protocol requirement does not count);
#   4. `docc convert` turns each catalog and only its module's graphs into a static site under
#      .build/docs/<Module>, with --warnings-as-errors.
# Any failure or DocC warning fails the script.
#
# usage: scripts/docs.sh                   everything above
#        scripts/docs.sh --undocumented    steps 2-3 only: list the undocumented public symbols
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(SocketIO SocketIOConcurrency EventSource)
examples=Tests/DocExamplesTests
out=.build/docs
graphs_all=.build/docs-symbol-graphs
mode=${1:-site}

docc=$(command -v docc || true)
if [[ -z "$docc" ]]; then
    docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
fi

# MARK: 1. The articles' code blocks are compiled examples
check_examples() {
    python3 - "$examples" "${modules[@]}" <<'PY'
import pathlib, re, sys

examples_dir, modules = pathlib.Path(sys.argv[1]), sys.argv[2:]

def normalized(lines):
    """The code without what swift-format may change: whitespace and line breaks, semicolons,
    trailing commas; so the examples target can be formatted and still match the pages."""
    text = re.sub(r"\s+", "", "\n".join(lines)).replace(";", "")
    return re.sub(r",([\])])", r"\1", text)

compiled = "".join(normalized(path.read_text().splitlines())
                   for path in sorted(examples_dir.glob("*.swift")))

failures, checked, exempt = [], 0, 0
# The catalogs' pages and the README's examples.
pages = [page for module in modules
         for page in sorted(pathlib.Path(f"Sources/{module}/{module}.docc").rglob("*.md"))]
pages.append(pathlib.Path("README.md"))
for page in pages:
        lines = page.read_text().splitlines()
        index = 0
        while index < len(lines):
            fence = re.match(r"^(\s*)```(\S*)\s*$", lines[index])
            if not fence:
                index += 1
                continue
            start, language = index + 1, fence.group(2)
            index += 1
            while index < len(lines) and not re.match(r"^\s*```\s*$", lines[index]):
                index += 1
            body = lines[start:index]
            index += 1
            if language != "swift":
                continue
            first = body[0].strip() if body else ""
            if first == "// Package.swift" or first.startswith("// Not compiled:"):
                exempt += 1
                continue
            checked += 1
            block = normalized(body)
            if not block or block not in compiled:
                failures.append(f"{page}:{start}: error: this ```swift block is not in {examples_dir} "
                                f"verbatim (add it there as compiled code, or mark it `// Not compiled: why`)")
for failure in failures:
    print(failure, file=sys.stderr)
print(f"docs: {checked} swift blocks found compiled in {examples_dir}, {exempt} marked not compiled")
sys.exit(1 if failures else 0)
PY
}

# MARK: 2. Symbol graphs
dump_symbol_graphs() {
    echo "docs: extracting symbol graphs (swift package dump-symbol-graph, debug build)"
    local log
    log=$(mktemp)
    if ! swift package dump-symbol-graph --minimum-access-level public --skip-synthesized-members \
            --emit-extension-block-symbols >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        echo "docs: dump-symbol-graph failed" >&2
        exit 1
    fi
    local dumped
    dumped=$(sed -n 's/^Files written to //p' "$log" | tail -1)
    rm -f "$log"
    if [[ -z "$dumped" || ! -d "$dumped" ]]; then
        dumped=$(dirname "$(find .build -path '*symbolgraph*' -name 'SocketIO.symbols.json' -newer Package.swift | head -1)")
    fi
    rm -rf "$graphs_all"
    for module in "${modules[@]}"; do
        mkdir -p "$graphs_all/$module"
        cp "$dumped/$module.symbols.json" "$graphs_all/$module/"
        find "$dumped" -maxdepth 1 -name "$module@*.symbols.json" -exec cp {} "$graphs_all/$module/" \;
    done
}

# MARK: 3. Every public symbol documented
check_documented() {
    python3 - "$graphs_all" "${modules[@]}" <<'PY'
import json, pathlib, sys

root, modules = pathlib.Path(sys.argv[1]), sys.argv[2:]
total_missing = 0
for module in modules:
    missing, implicit, count = [], [], 0
    for graph in sorted((root / module).glob("*.symbols.json")):
        for symbol in json.loads(graph.read_text())["symbols"]:
            if symbol["kind"]["identifier"] == "swift.extension":
                continue
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            count += 1
            doc = symbol.get("docComment")
            location = symbol.get("location")
            if doc and location and any(line["text"].strip() for line in doc["lines"]):
                # Its own comment ends just above the declaration (attributes aside); one
                # inherited from a protocol requirement sits elsewhere (or in another module).
                last = doc["lines"][-1].get("range", {}).get("end", {}).get("line")
                if doc.get("uri") == location["uri"] and last is not None \
                        and 0 < location["position"]["line"] - last <= 4:
                    continue
            name = f"{'.'.join(symbol['pathComponents'])} ({symbol['kind']['displayName']})"
            if location is None:
                # Declared by the compiler (an enum's init(rawValue:)): no source to comment; the
                # page shows the protocol requirement's documentation.
                implicit.append(name)
                continue
            where = location["uri"].replace("file://", "")
            missing.append(f"{where}:{location['position']['line'] + 1}: {name}")
    print(f"docs: {module}: {count} public symbols, {len(missing)} declared without a doc comment"
          f" (+{len(implicit)} compiler-declared, documented by their protocol)")
    for entry in sorted(missing):
        print("  " + entry)
    total_missing += len(missing)
sys.exit(1 if total_missing else 0)
PY
}

if [[ "$mode" == "--undocumented" ]]; then
    dump_symbol_graphs
    check_documented
    exit
fi

check_examples
dump_symbol_graphs
check_documented

# MARK: 4. The static site
rm -rf "$out"
mkdir -p "$out"
for module in "${modules[@]}"; do
    lower=$(echo "$module" | tr '[:upper:]' '[:lower:]')
    echo "docs: docc convert $module"
    "$docc" convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$graphs_all/$module" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "io.swift-realtime.$module" \
        --output-path "$out/$module" \
        --transform-for-static-hosting \
        --hosting-base-path "$module" \
        --warnings-as-errors
    if [[ ! -f "$out/$module/documentation/$lower/index.html" ]]; then
        echo "docs: $out/$module/documentation/$lower/index.html was not written" >&2
        exit 1
    fi
done

cat >"$out/index.html" <<'HTML'
<!doctype html>
<meta charset="utf-8">
<title>swift-realtime documentation</title>
<h1>swift-realtime</h1>
<ul>
  <li><a href="SocketIO/documentation/socketio/">SocketIO</a>: the socket.io-client-swift 16.x API</li>
  <li><a href="SocketIOConcurrency/documentation/socketioconcurrency/">SocketIOConcurrency</a>: async/await over SocketIO</li>
  <li><a href="EventSource/documentation/eventsource/">EventSource</a>: Server-Sent Events</li>
</ul>
HTML

echo "docs: site written to $PWD/$out"
echo "docs: serve it with: python3 -m http.server --directory $out 8000"
for module in "${modules[@]}"; do
    lower=$(echo "$module" | tr '[:upper:]' '[:lower:]')
    echo "docs:   http://localhost:8000/$module/documentation/$lower/"
done
