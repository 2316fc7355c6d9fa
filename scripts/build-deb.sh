#!/usr/bin/env bash
# Builds the Debian package schedd_VERSION_amd64.deb with dpkg-deb (no debhelper, no source package).
#
# Usage: scripts/build-deb.sh [OUTDIR=.] [BINARY=.build/release/schedd] [VERSION=from schedd --version]
#                             [MAINTAINER='Name <address>']
# Contents (PREFIX=/usr, through scripts/install.sh):
#   /usr/bin/schedd                                   the release binary, Swift runtime linked in (--static-swift-stdlib)
#   /usr/lib/systemd/user/schedd.service              user service
#   /usr/lib/systemd/system/schedd-system.service     system service (kiosks), runs as user schedd
#   /usr/share/dbus-1/services/org.schedd.Scheduler1.service   session-bus activation
#   /usr/share/dbus-1/system.d/org.schedd.Scheduler1.conf      system-bus policy
#   /usr/share/dbus-1/system-services/org.schedd.Scheduler1.service   system-bus activation of schedd-system.service
#   /usr/share/dbus-1/interfaces/org.schedd.{Scheduler1,UnifiedPush1}.xml   D-Bus interface descriptions
#   /usr/share/man/manN/*.N.gz, shell completions     when the repository has them (man/, completions/)
#   /usr/share/doc/schedd/{copyright,changelog.gz}   copyright: Apache-2.0, Debian's machine-readable format
#   /usr/share/doc/schedd/*.md, *.png                  the documentation the units' Documentation= names
# The preinst creates the system group `schedd` (whose members may call the system daemon) and the
# system user `schedd` that schedd-system.service runs as, before dpkg unpacks the bus policy that names
# them: dbus-daemon reloads its configuration the moment the policy file appears, and a policy naming
# an unknown user is logged (`Unknown username "schedd"`) and ignored until the next reload. Hence
# Pre-Depends: adduser. Removing the package leaves both (Debian policy: accounts may own files elsewhere).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

OUTDIR="${OUTDIR:-.}"
BINARY="${BINARY:-}"
VERSION="${VERSION:-}"
MAINTAINER="${MAINTAINER:-schedd maintainers <schedd-maintainers@users.noreply.github.com>}"
for arg in "$@"; do
  case "$arg" in
    OUTDIR=*) OUTDIR="${arg#OUTDIR=}" ;;
    BINARY=*) BINARY="${arg#BINARY=}" ;;
    VERSION=*) VERSION="${arg#VERSION=}" ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-deb.sh: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
  esac
done
if [ -z "$BINARY" ]; then
  BINARY=.build/release/schedd
  echo "build-deb.sh: building schedd (release, Swift runtime linked statically)" >&2
  swift build -c release --static-swift-stdlib --product schedd >&2
fi
[ -x "$BINARY" ] || { echo "build-deb.sh: no executable at '$BINARY'" >&2; exit 1; }
if ldd "$BINARY" | grep -q libswift; then
  echo "build-deb.sh: '$BINARY' links the Swift runtime dynamically; build it with --static-swift-stdlib" >&2
  exit 1
fi
[ -n "$VERSION" ] || VERSION=$("$BINARY" --version | awk '{print $2}')
case "$VERSION" in ''|*[!0-9A-Za-z.+~-]*) echo "build-deb.sh: bad version '$VERSION'" >&2; exit 1 ;; esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/root"
mkdir -p "$root"
PREFIX=/usr DESTDIR="$root" BINARY="$BINARY" bash scripts/install.sh --no-build >/dev/null
# Debian keeps systemd units under /usr/lib/systemd (install.sh's PREFIX/lib/systemd with PREFIX=/usr).
install -d -m 0755 "$root/usr/share/dbus-1/system-services"
sed 's|/usr/local/bin/schedd|/usr/bin/schedd|' units/org.schedd.Scheduler1.system-service \
  > "$root/usr/share/dbus-1/system-services/org.schedd.Scheduler1.service"
chmod 0644 "$root/usr/share/dbus-1/system-services/org.schedd.Scheduler1.service"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/schedd"

doc="$root/usr/share/doc/schedd"
install -d -m 0755 "$doc"
cat > "$doc/copyright" <<'EOF'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: schedd
Comment: Built from the schedd repository by scripts/build-deb.sh; the licence is the
 repository's LICENSE file. usr/bin/schedd also holds, linked statically, the parts it uses of
 Debian's OpenSSL libcrypto (libssl-dev; Apache-2.0, as below) and SQLite (libsqlite3-dev; public
 domain), whose copyright files Debian's libssl3 and libsqlite3-0 packages carry.

Files: *
Copyright: 2026 the schedd authors
License: Apache-2.0

License: Apache-2.0
 Licensed under the Apache License, Version 2.0 (the "License");
 you may not use this file except in compliance with the License.
 You may obtain a copy of the License at
 .
     http://www.apache.org/licenses/LICENSE-2.0
 .
 Unless required by applicable law or agreed to in writing, software
 distributed under the License is distributed on an "AS IS" BASIS,
 WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 See the License for the specific language governing permissions and
 limitations under the License.
 .
 On Debian systems, the full text of the Apache License, Version 2.0
 can be found in the file '/usr/share/common-licenses/Apache-2.0'.
EOF
date_rfc2822=$(date -R -u -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")
cat > "$work/changelog" <<EOF
schedd ($VERSION) unstable; urgency=medium

  * Built by scripts/build-deb.sh from the schedd repository
    (commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)).

 -- $MAINTAINER  $date_rfc2822
EOF
gzip -9n -c "$work/changelog" > "$doc/changelog.gz"

# install.sh installs the manual pages and completions (when the repository has them); Debian wants
# the pages compressed, and zsh completions in vendor-completions.
find "$root/usr/share/man" -type f -name '*.[1-8]' -exec gzip -9n {} + 2>/dev/null || true
if [ -f "$root/usr/share/zsh/site-functions/_schedd" ]; then
  install -d -m 0755 "$root/usr/share/zsh/vendor-completions"
  mv "$root/usr/share/zsh/site-functions/_schedd" "$root/usr/share/zsh/vendor-completions/_schedd"
  rmdir "$root/usr/share/zsh/site-functions"
fi

# Shared-library dependencies as dpkg-shlibdeps computes them (it wants a debian/control beside it).
mkdir -p "$work/src/debian"
printf 'Source: schedd\n\nPackage: schedd\nArchitecture: amd64\n' > "$work/src/debian/control"
shlibs=$(cd "$work/src" && dpkg-shlibdeps -O "$root/usr/bin/schedd" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$shlibs" ] || { echo "build-deb.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

install -d -m 0755 "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<EOF
Package: schedd
Version: $VERSION
Architecture: amd64
Maintainer: $MAINTAINER
Installed-Size: $size
Pre-Depends: adduser
Depends: $shlibs
Recommends: dbus-daemon | dbus-broker
Suggests: dunst | notification-daemon
Section: utils
Priority: optional
Description: local notification scheduler daemon
 schedd schedules local desktop notifications from JSON pushes (one-shot at
 a wall-clock time, or repeating on a systemd calendar expression), stores
 them durably in SQLite and shows them through org.freedesktop.Notifications
 when due. Apps reach it on D-Bus (org.schedd.Scheduler1); test suites drive
 its fake clock with 'schedd testbed'.
EOF
cat > "$root/DEBIAN/preinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = install ] || [ "$1" = upgrade ]; then
    # Before the bus policy naming them is unpacked (see build-deb.sh): members of group schedd (and
    # root) may call the system-bus daemon; schedd-system.service runs as user schedd.
    getent group schedd >/dev/null || addgroup --quiet --system schedd
    getent passwd schedd >/dev/null || adduser --quiet --system --ingroup schedd --home /var/lib/schedd \
        --no-create-home --gecos "schedd notification scheduler" schedd
fi
exit 0
EOF
cat > "$root/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
    if [ -d /run/systemd/system ]; then
        systemctl daemon-reload >/dev/null 2>&1 || true
    fi
fi
exit 0
EOF
cat > "$root/DEBIAN/postrm" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = remove ] && [ -d /run/systemd/system ]; then
    systemctl daemon-reload >/dev/null 2>&1 || true
fi
exit 0
EOF
chmod 0755 "$root/DEBIAN/preinst" "$root/DEBIAN/postinst" "$root/DEBIAN/postrm"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums" "$root/DEBIAN/control"
find "$root" -type d -exec chmod 0755 {} +

mkdir -p "$OUTDIR"
deb="$OUTDIR/schedd_${VERSION}_amd64.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
