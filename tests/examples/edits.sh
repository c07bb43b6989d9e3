# Sourced by the library examples' drivers: a library's package as a developer
# edits it, searched first, with nothing copied but the one module edited.

# link_all_but <folder> <into> <name>: links to every entry of <folder> but <name>.
link_all_but() {
  mkdir -p "$2"
  local entry
  for entry in "$1"/*; do
    [[ $(basename "$entry") == "$3" ]] || ln -s "$entry" "$2/"
  done
}

# edited_copy <installed package folder> <tree> <module path in it> <old> <new>:
# <tree> links to every file of the package but <module path>, which is a copy
# with the text <old> (which must be there) replaced by <new>.
edited_copy() {
  local src=$1 dst=$2 part parts
  rm -rf "$dst"
  IFS=/ read -ra parts <<< "$3"
  for part in "${parts[@]}"; do
    link_all_but "$src" "$dst" "$part"
    src=$src/$part dst=$dst/$part
  done
  OLD=$4 NEW=$5 "$TILEPERF_PYTHON" -c 'import os, sys
text = open(sys.argv[1]).read()
if os.environ["OLD"] not in text:
    sys.exit(f"{sys.argv[1]}: the text to edit is not there: {os.environ[chr(79) + chr(76) + chr(68)]}")
open(sys.argv[2], "w").write(text.replace(os.environ["OLD"], os.environ["NEW"]))' "$src" "$dst"
}

# installed_package <name>: the folder of the installed package.
installed_package() {
  "$TILEPERF_PYTHON" -c 'import importlib.util as u, sys; print(u.find_spec(sys.argv[1]).submodule_search_locations[0])' "$1"
}
