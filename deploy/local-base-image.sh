#!/bin/sh
# Build a node base image without any registry: the host's own node (+ npm), /bin/sh, tc and ip,
# with the shared libraries ldd lists, imported as one layer with `docker import`.
#
#   deploy/local-base-image.sh [IMAGE]        (default rocelab-base:local)
#   docker build -f deploy/Dockerfile --build-arg NODE_IMAGE=rocelab-base:local -t rocelab:local .
#
# Users with a registry do not need this: deploy/Dockerfile starts FROM node:20-slim by default.
set -eu
image="${1:-rocelab-base:local}"
root="$(mktemp -d "${TMPDIR:-/tmp}/rocelab-base.XXXXXX")"
trap 'rm -rf "$root"' EXIT INT TERM

node_bin="$(command -v node)"
sh_bin="$(readlink -f /bin/sh)"
bins="$node_bin $sh_bin"
for b in tc ip; do
  p="$(command -v "$b" 2>/dev/null || true)"
  [ -n "$p" ] && bins="$bins $p"
done

copy() { # copy a file keeping its path (and the target of a symlink)
  src="$1"
  mkdir -p "$root$(dirname "$src")"
  cp -L "$src" "$root$src"
}

for b in $bins; do
  copy "$b"
  for lib in $(ldd "$b" 2>/dev/null | awk '/=>/ { print $3 } /^\t\// { print $1 }'); do
    [ -f "$lib" ] && copy "$lib"
  done
done

# Fixed names the Dockerfile relies on.
mkdir -p "$root/usr/local/bin" "$root/bin" "$root/tmp" "$root/etc" "$root/usr/sbin"
[ "$node_bin" = /usr/local/bin/node ] || ln -sf "$node_bin" "$root/usr/local/bin/node"
ln -sf "$sh_bin" "$root/bin/sh"
chmod 1777 "$root/tmp"

# npm, so `npm prune` works inside the build (offline).
npm_dir="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
if [ -d "$npm_dir" ]; then
  mkdir -p "$root/usr/local/lib/node_modules"
  cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
  # A wrapper, not a symlink: npm-cli.js starts with #!/usr/bin/env, and there is no env here.
  printf '#!/bin/sh\nexec node /usr/local/lib/node_modules/npm/bin/npm-cli.js "$@"\n' >"$root/usr/local/bin/npm"
  chmod 755 "$root/usr/local/bin/npm"
fi

# tc reads these tables (names of rates, protocols); copy what exists.
for f in /etc/iproute2 /usr/lib/tc /usr/share/iproute2; do
  [ -e "$f" ] && { mkdir -p "$root$(dirname "$f")"; cp -a "$f" "$root$f"; }
done
printf 'root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000::/home/node:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\nnode:x:1000:\n' >"$root/etc/group"
printf 'hosts: files dns\n' >"$root/etc/nsswitch.conf"
mkdir -p "$root/root" "$root/home/node"

tar -C "$root" -c . | docker import \
  -c 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin' \
  -c 'CMD ["node"]' -c 'LABEL org.rocelab.image=base' - "$image" >/dev/null
echo "$image"
