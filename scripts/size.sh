#!/usr/bin/env bash
# size.sh prints how big the stripped gpucost binary is and what fills it: the symbol bytes of
# the largest modules and packages (text, read-only data and data; not .bss, which takes no room
# in the file). docs/architecture.md "Binary size" records the figure and what brought it there.
#
# Settings, from the environment (make size passes them on):
#   GO    the go command (default go)
#   TOP   how many modules and packages to list (default 25)
#   MAXMB fail when the stripped binary is larger than this many MB (10^6 bytes; default 40, the
#         limit docs/architecture.md "Binary size" sets; MAXMB= for none)
#
# Example: make size TOP=40
set -eu
GO=${GO:-go}
TOP=${TOP:-25}
MAXMB=${MAXMB-40}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$GO" build -ldflags='-s -w' -o "$tmp/stripped" ./cmd/gpucost 2>"$tmp/build.log" || { cat "$tmp/build.log"; exit 1; }
"$GO" build -o "$tmp/full" ./cmd/gpucost 2>>"$tmp/build.log" || { cat "$tmp/build.log"; exit 1; }
bytes=$(wc -c <"$tmp/stripped")
printf 'stripped gpucost binary: %d bytes (%.1f MB)\n' "$bytes" "$(echo "$bytes / 1000000" | bc -l)"
readelf -S -W "$tmp/stripped" | awk '/\] \.(text|rodata|gopclntab|noptrdata|data) / { sub(/^.*\] */, ""); printf "  %-11s %s\n", $1, $5 }' |
	while read -r name size; do printf '  %-11s %6.1f MB\n' "$name" "$(echo "ibase=16; $(echo "$size" | tr a-f A-F)" | bc | awk '{ print $1 / 1e6 }')"; done

# package -> module, for every package the binary links ("std" for the standard library).
"$GO" list -deps -f '{{.ImportPath}} {{with .Module}}{{.Path}}{{else}}std{{end}}' ./cmd/gpucost >"$tmp/modules"
# The address ranges that take no room in the file (.bss, .noptrbss, .tbss).
readelf -S -W "$tmp/full" | awk '$0 ~ /NOBITS/ { sub(/^.*\]/, ""); print $3, $5 }' >"$tmp/nobits"
"$GO" tool nm -size "$tmp/full" >"$tmp/nm"

awk -v top="$TOP" -v out="$tmp" '
FILENAME == out "/modules" { mod[$1] = $2; next }
FILENAME == out "/nobits"  { nb++; lo[nb] = hex($1); hi[nb] = lo[nb] + hex($2); next }
{
	addr = hex($1); size = $2; name = $4
	for (i = 1; i <= nb; i++) if (addr >= lo[i] && addr < hi[i]) next
	pkg = symbolPackage(name)
	m = (pkg in mod) ? mod[pkg] : (pkg ~ /^(go:|type:|runtime|gclocals|_)/ || pkg !~ /\./ ? "std" : "other")
	if (m == "std" && !(pkg in mod)) pkg = "(linker:go:func.*,typelinks...)"
	bypkg[pkg] += size; bymod[m] += size; total += size
}
# hex returns the value of a hexadecimal number (mawk has no strtonum).
function hex(h,   i, v) {
	v = 0; h = tolower(h)
	for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return v
}
# symbolPackage returns the import path a symbol belongs to: the text before the first dot
# after the last slash, once the symbol prefixes and any generic arguments are cut off.
function symbolPackage(s,   i, rest, slash) {
	sub(/^(type:|go:itab\.|go:info\.)/, "", s)
	sub(/^\.eq\./, "", s)
	sub(/^\*+/, "", s)
	i = index(s, ","); if (i > 0) s = substr(s, 1, i - 1)
	i = index(s, "["); if (i > 0) s = substr(s, 1, i - 1)
	i = index(s, "("); if (i > 0) s = substr(s, 1, i - 1)
	slash = 0
	for (i = length(s); i > 0; i--) if (substr(s, i, 1) == "/") { slash = i; break }
	rest = substr(s, slash + 1)
	i = index(rest, "."); if (i > 0) rest = substr(rest, 1, i - 1)
	rest = substr(s, 1, slash) rest
	gsub(/%2e/, ".", rest)
	return rest
}
END {
	printf "symbol bytes: %.1f MB (the code and data above; .gopclntab, the function tables, grows with the code)\n\n", total / 1e6
	printf "top modules by symbol bytes:\n"
	for (m in bymod) print bymod[m], m | "sort -rn | head -n " top " | awk '\''{ printf \"  %8.2f MB  %s\\n\", $1 / 1e6, $2 }'\''"
	close("sort -rn | head -n " top " | awk '\''{ printf \"  %8.2f MB  %s\\n\", $1 / 1e6, $2 }'\''")
	printf "\ntop packages by symbol bytes:\n"
	for (p in bypkg) print bypkg[p], p | "sort -rn | head -n " top " | awk '\''{ printf \"  %8.2f MB  %s\\n\", $1 / 1e6, $2 }'\''"
}' "$tmp/modules" "$tmp/nobits" "$tmp/nm"

# A call of reflect.Value.MethodByName or Method with a name known only at run time (text/template
# executing a template, go-playground/validator) makes the linker keep every exported method of
# every type: it doubled this binary once. The linker marks such functions <ReflectMethod>.
"$GO" build -ldflags=-dumpdep -o /dev/null ./cmd/gpucost 2>"$tmp/deps" || { tail "$tmp/deps"; exit 1; }
reflectors=$(grep -o '^[^ ]* <ReflectMethod>' "$tmp/deps" | sort -u || true)
if [ -n "$reflectors" ]; then
	echo
	echo "size.sh: these functions call reflect methods by run-time name, so every exported method is kept:"
	echo "$reflectors" | sed 's/^/  /'
	echo "find who reaches one: go build -ldflags=-dumpdep ./cmd/gpucost 2>&1 | grep -- '-> NAME' (docs/architecture.md \"Binary size\")"
	exit 1
fi

if [ -n "$MAXMB" ] && [ "$bytes" -gt $((MAXMB * 1000000)) ]; then
	echo "size.sh: the stripped binary is over MAXMB=$MAXMB MB; find what grew in the lists above (docs/architecture.md \"Binary size\")" >&2
	exit 1
fi
