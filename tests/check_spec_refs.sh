#!/bin/sh
# tests/check_spec_refs.sh SOURCE_DIR - the project's documents stay true to
# the code that cites them:
#   1. every "specification section N" names a section "## N." of
#      docs/SPEC.md ("section N.M" a section "### N.M").  In C and C++
#      sources any "section N" counts (there it always means the
#      specification); in documents and scripts only a citation that names
#      the specification does (their own sections are theirs);
#   2. every bug-<name> tag the generators define has a row in
#      docs/PITFALLS.md, and every bug- tag there is one they define.
# Prints each broken reference and exits 1 when there is one.
set -u
src=${1:?usage: check_spec_refs.sh SOURCE_DIR}
spec=$src/docs/SPEC.md
pitfalls=$src/docs/PITFALLS.md
for f in "$spec" "$pitfalls"; do
    [ -f "$f" ] || { echo "missing $f"; exit 1; }
done

sections=$(sed -n -e 's/^## \([0-9][0-9]*\)\. .*/\1/p' \
                  -e 's/^### \([0-9][0-9]*\.[0-9][0-9]*\) .*/\1/p' "$spec" | tr '\n' ' ')
[ -n "$sections" ] || { echo "$spec: no numbered sections"; exit 1; }

list() { # files under src with these name patterns, build trees left out
    find "$src" \( -name .git -o -name 'build*' -o -name out \) -prune -o -type f \
         \( "$@" \) -print
}
num='[0-9][0-9]*\(\.[0-9][0-9]*\)\{0,1\}'
{
    list -name '*.c' -o -name '*.h' -o -name '*.cpp' |
        xargs grep -n -o -H -e "[Ss]ection $num"
    list -name '*.md' -o -name '*.py' -o -name '*.sh' -o -name '*.txt' |
        grep -v -x "$spec" |
        xargs grep -n -o -H -e "specification[,']*s\{0,1\} section $num" \
                            -e "SPEC\.md,\{0,1\} section $num" \
                            -e "[Ss]ection $num of the specification"
} | awk -v sections="$sections" '
    BEGIN { n = split(sections, s, " "); for (i = 1; i <= n; i++) have[s[i]] = 1 }
    {
        # FILE:LINE:... section N ...
        match($0, /[Ss]ection [0-9]+(\.[0-9]+)?/)
        ref = substr($0, RSTART + 8, RLENGTH - 8)
        split($0, at, ":")
        cited++
        if (!(ref in have)) {
            printf "%s:%s: cites specification section %s, which docs/SPEC.md does not have\n", at[1], at[2], ref
            bad++
        }
    }
    END {
        printf "%d citations of the specification, %d broken\n", cited, bad
        if (cited < 30) { print "fewer than 30 citations found: is the search broken?"; exit 1 }
        exit bad > 0
    }'
refs=$?

# bug- tags: defined in the generators' string literals, listed in PITFALLS.
defined=$(grep -h -o '"bug-[a-z0-9-]*"' "$src"/generators/*.c | tr -d '"' | sort -u)
listed=$(grep '^|' "$pitfalls" | grep -o '`bug-[a-z0-9-]*`' | tr -d '`' | sort -u)
tags=0
[ -n "$defined" ] || { echo "no bug- tags found in $src/generators"; tags=1; }
for t in $defined; do
    echo "$listed" | grep -qx "$t" ||
        { echo "docs/PITFALLS.md: no row for the tag $t (generators define it)"; tags=1; }
done
for t in $listed; do
    echo "$defined" | grep -qx "$t" ||
        { echo "docs/PITFALLS.md: the tag $t is not one the generators define"; tags=1; }
done
echo "$(echo "$defined" | wc -w) bug- tags, each with a row in docs/PITFALLS.md: $([ $tags = 0 ] && echo yes || echo no)"

[ $refs = 0 ] && [ $tags = 0 ]
