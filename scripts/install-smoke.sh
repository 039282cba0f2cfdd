#!/bin/sh
# The smoke check of an installed `pay`: run against what a user installed (the npm tarball in a prefix, or the
# standalone tarball), never the repository. Usage: install-smoke.sh PAY_BIN FLOWS_DIR
# Needs only a POSIX shell and coreutils (the standalone check runs it with no Node on PATH). Exit 0 when every
# step passed; the first failing step is named on stderr.
set -eu
PAY=$1
FLOWS=$2
work=$(mktemp -d)
sandbox_pid=
cleanup() {
  [ -n "$sandbox_pid" ] && kill "$sandbox_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
export PAY_CONFIG_DIR="$work/config" XDG_STATE_HOME="$work/state" NO_COLOR=1 CI=1
unset PAY_BASE_URL PAY_CLIENT_ID PAY_CLIENT_SECRET PAY_PROFILE PAY_ACCOUNT_REF PAY_WEBHOOK_SECRET
cd "$work"

step() { printf '== %s\n' "$*" >&2; }
fail() { printf 'install smoke FAILED: %s\n' "$*" >&2; exit 1; }

step "pay --version"
"$PAY" --version | grep -q '^pay-cli/' || fail "--version does not name pay-cli"

step "pay --help and a command's help"
"$PAY" --help | grep -q 'collections' || fail "--help lists no collections topic"
"$PAY" collections create --help | grep -q -- '--amount' || fail "collections create --help shows no --amount"

step "pay sandbox start (port 0, saves the profile \"sandbox\")"
"$PAY" sandbox start --port 0 --json >sandbox.json 2>sandbox.err &
sandbox_pid=$!
i=0
until grep -q '"url"' sandbox.json 2>/dev/null; do
  i=$((i + 1))
  [ "$i" -le 100 ] || { cat sandbox.err >&2; fail "the sandbox printed no url within 10 s"; }
  kill -0 "$sandbox_pid" 2>/dev/null || { cat sandbox.err >&2; fail "the sandbox exited"; }
  sleep 0.1
done
"$PAY" profiles use sandbox >/dev/null

step "pay balance with the stored profile"
"$PAY" balance --json | grep -q '"collection_wallet' || fail "balance answered no wallet"

step "pay collections create --wait"
"$PAY" collections create --amount 25.00 --currency KES --reference install-smoke-1 --mobile 254700000001 \
  --provider mpesa --wait --json >collection.json || fail "collections create --wait exited $?"
grep -q '"status": *"succeeded"' collection.json || fail "the collection did not succeed: $(cat collection.json)"

step "pay completion bash"
"$PAY" completion bash | grep -q 'complete' || fail "no bash completion script"

step "pay flow run (a shipped flow, against an ephemeral sandbox)"
"$PAY" flow run --sandbox "$FLOWS/payout.yaml" >flow.out 2>&1 || { cat flow.out >&2; fail "the shipped flow failed"; }

step "pay sandbox stops on SIGTERM"
kill -TERM "$sandbox_pid"
wait "$sandbox_pid" || true
sandbox_pid=
echo "install smoke passed"
