#!/usr/bin/env bash
# A real S3-compatible server (SeaweedFS) on 127.0.0.1 for the TestS3* tests.
#   eval "$(scripts/s3-server.sh up)"   starts it with an empty bucket and prints the exports:
#       AWS_ENDPOINT_URL AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION
#       CTXC_TEST_S3_BUCKET CTXC_TEST_S3_PID CTXC_TEST_S3_DIR
#   scripts/s3-server.sh down           stops it (by CTXC_TEST_S3_PID) and removes its data.
# The weed binary is built once from the Go module proxy into $CTXC_TEST_CACHE/bin
# (default ~/.cache/ctxc-test/bin) and reused; the first build takes many minutes.
set -euo pipefail
version=v0.0.0-20261109003541-7506e5f91cd6 # github.com/seaweedfs/seaweedfs
cache=${CTXC_TEST_CACHE:-$HOME/.cache/ctxc-test}
weed=$cache/bin/weed
access_key=ctxc-test-key
secret_key=ctxc-test-secret-0123456789
bucket=${CTXC_TEST_S3_BUCKET:-ctxc-test}

# build_weed builds weed from the module's source: its go.mod has replace directives, so
# `go install module@version` refuses it and the build runs inside a copy of the module.
build_weed() {
  [[ -x $weed ]] && return
  mkdir -p "$cache/bin"
  local src tmp
  src=$(cd "${TMPDIR:-/tmp}" && GOFLAGS= go mod download -json "github.com/seaweedfs/seaweedfs@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [[ -d $src ]] || { echo "s3-server.sh: could not download seaweedfs $version" >&2; exit 1; }
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/ctxc-weed-src.XXXXXX")
  cp -r "$src/." "$tmp" && chmod -R u+w "$tmp"
  echo "s3-server.sh: building weed (once; it takes a while)" >&2
  (cd "$tmp" && GOFLAGS= go build -trimpath -ldflags=-s -o "$weed.tmp" ./weed) >&2
  mv "$weed.tmp" "$weed"
  rm -rf "$tmp"
}

# free_ports prints n free TCP ports of 127.0.0.1, all different.
free_ports() {
  python3 - "$1" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
}

# s3 sends a signed request with curl (SigV4), for the bucket's creation and the readiness check.
s3() {
  curl -fsS --aws-sigv4 "aws:amz:us-east-1:s3" --user "$access_key:$secret_key" "$@"
}

up() {
  build_weed
  local dir pid
  dir=$(mktemp -d "${TMPDIR:-/tmp}/ctxc-s3.XXXXXX")
  read -r master mgrpc volume vgrpc filer fgrpc s3port s3grpc < <(free_ports 8)
  cat > "$dir/s3.json" <<JSON
{"identities": [{"name": "ctxc-test", "credentials": [{"accessKey": "$access_key", "secretKey": "$secret_key"}],
  "actions": ["Admin", "Read", "List", "Tagging", "Write"]}]}
JSON
  mkdir -p "$dir/data"
  setsid "$weed" server -ip=127.0.0.1 -ip.bind=127.0.0.1 -dir="$dir/data" \
    -master.port="$master" -master.port.grpc="$mgrpc" -master.telemetry=false -master.volumeSizeLimitMB=64 \
    -volume.port="$volume" -volume.port.grpc="$vgrpc" -volume.max=32 \
    -filer -filer.port="$filer" -filer.port.grpc="$fgrpc" \
    -s3 -s3.port="$s3port" -s3.port.grpc="$s3grpc" -s3.port.iceberg=0 -s3.port.lance=0 -s3.config="$dir/s3.json" \
    >"$dir/weed.log" 2>&1 < /dev/null &
  pid=$!
  local url=http://127.0.0.1:$s3port
  for _ in $(seq 1 150); do
    s3 -X PUT "$url/$bucket" >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if ! s3 "$url/$bucket?list-type=2" >/dev/null 2>&1; then
    echo "s3-server.sh: SeaweedFS did not start; see $dir/weed.log" >&2
    tail -20 "$dir/weed.log" >&2
    kill -- "-$pid" 2>/dev/null || true
    exit 1
  fi
  echo "export AWS_ENDPOINT_URL=$url AWS_ACCESS_KEY_ID=$access_key AWS_SECRET_ACCESS_KEY=$secret_key AWS_REGION=us-east-1 CTXC_TEST_S3_BUCKET=$bucket CTXC_TEST_S3_PID=$pid CTXC_TEST_S3_DIR=$dir"
}

# down stops the server's process group (setsid made it its own) and removes its data.
down() {
  local pid=${CTXC_TEST_S3_PID:-}
  if [[ -n $pid ]]; then
    kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 25); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 -- "-$pid" 2>/dev/null || true
  fi
  [[ -n ${CTXC_TEST_S3_DIR:-} && -d $CTXC_TEST_S3_DIR ]] && rm -rf "$CTXC_TEST_S3_DIR"
  return 0
}

case ${1:-} in
  up) up ;;
  down) down ;;
  build) build_weed ;;
  *) echo "usage: scripts/s3-server.sh up|down|build" >&2; exit 2 ;;
esac
