#!/usr/bin/env bash
# Compiles, with the real tileiras here, every bytecode that tools/gpu/tileiras_stub.py
# recorded on a GPU machine, into the store the stub serves from.
#   tools/gpu/precompile.sh <recorded-dir> <store-dir>
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
rec=$1 store=$2
bin=$("$top/.venv/bin/python" -c "import os, nvidia.cu13 as m; print(os.path.join(list(m.__path__)[0], 'bin'))")
mkdir -p "$store"
env -u CUDA_HOME "$bin/tileiras" --version > "$store/version.txt"
n=0
for bc in "$rec"/*.tileirbc; do
  [[ -e $bc ]] || continue
  key=$(basename "$bc" .tileirbc)
  mapfile -t flags < <(python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["flags"]))' "$rec/$key.json")
  env -u CUDA_HOME "$bin/tileiras" "$bc" -o "$store/$key.cubin" "${flags[@]}"
  n=$((n + 1))
done
echo "compiled $n recorded bytecode(s) into $store"
