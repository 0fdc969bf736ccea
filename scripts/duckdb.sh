#!/usr/bin/env bash
# Installs DuckDB (the npm package @duckdb/node-api, which ships the engine's binary for this
# platform) into $CTXC_TEST_CACHE/duckdb (default ~/.cache/ctxc-test/duckdb), with a command that
# runs one SQL statement and prints its rows as JSON: the export tests read ctxc's Parquet tables
# with it. DuckDB is a test tool only: ctxc neither links nor runs it. Idempotent. Prints one line
# to eval:
#   export CTXC_DUCKDB=<the duckdb-query command>
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${CTXC_TEST_CACHE:-$HOME/.cache/ctxc-test}
dir=$cache/duckdb
pin=@duckdb/node-api@1.5.6-r.1
if [[ ! -f $dir/.pin || $(cat "$dir/.pin") != "$pin" ]]; then
  mkdir -p "$dir"
  [[ -f $dir/package.json ]] || echo '{"private":true,"type":"module"}' > "$dir/package.json"
  echo "installing $pin into $dir ..." >&2
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$pin" >&2
  echo "$pin" > "$dir/.pin"
fi
cp "$here/duckdb/query.mjs" "$dir/query.mjs"
cat > "$dir/duckdb-query" <<SH
#!/usr/bin/env bash
exec node "$dir/query.mjs" "\$@"
SH
chmod +x "$dir/duckdb-query"
"$dir/duckdb-query" "select 1 as ok" >/dev/null || { echo "duckdb.sh: DuckDB does not run" >&2; exit 1; }
echo "export CTXC_DUCKDB=$dir/duckdb-query"
