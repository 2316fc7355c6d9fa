#!/usr/bin/env bash
# Installs schedd: the binary, the systemd units, the D-Bus activation file and the system-bus policy.
# As root (or with DESTDIR) it installs system-wide; as a normal user it installs for that user only,
# into $HOME and nothing outside it (see "As a normal user" below and docs/units.md).
#
# Usage: scripts/install.sh [PREFIX=/usr/local] [DESTDIR=] [BINARY=.build/release/schedd]
#                           [SYSTEM_USER=schedd] [SYSTEM_GROUP=schedd] [--create-user] [--no-build]
#   PREFIX       where systemd, D-Bus and $PATH look: /usr/local (default) or /usr; as a normal user
#                $HOME/.local (default; it must be inside $HOME).
#   DESTDIR      staging root for packagers (files go to $DESTDIR$PREFIX/…; paths inside them stay $PREFIX/…).
#   BINARY       the schedd executable to install; built with `swift build -c release --static-swift-stdlib` when missing.
#   SYSTEM_USER  the account schedd-system.service runs as and that alone may own the bus name.
#   SYSTEM_GROUP the group whose members (and root) may call schedd on the system bus; default SYSTEM_USER.
#   --create-user  also create SYSTEM_GROUP and the system user SYSTEM_USER (kiosk mode; needs root).
# The same settings are accepted as environment variables. Installed files:
#   $PREFIX/bin/schedd
#   $PREFIX/lib/systemd/user/schedd.service            user service (systemctl --user …)
#   $PREFIX/lib/systemd/system/schedd-system.service   system service for kiosks
#   $PREFIX/share/dbus-1/services/org.schedd.Scheduler1.service   session-bus activation
#   /etc/dbus-1/system.d/org.schedd.Scheduler1.conf    system-bus policy ($PREFIX/share/dbus-1/system.d
#                                                      when PREFIX=/usr: dbus-daemon reads only those two)
#   $PREFIX/share/man/man1/schedd.1, man5/schedd-push.5          manual pages
#   $PREFIX/share/bash-completion/completions/schedd             bash completion
#   $PREFIX/share/zsh/site-functions/_schedd                     zsh completion
#   $PREFIX/share/fish/vendor_completions.d/schedd.fish          fish completion
#   $PREFIX/share/doc/schedd/*.md, *.png, README.md              the documentation (the units' Documentation=)
#   $PREFIX/share/dbus-1/interfaces/org.schedd.*.xml             D-Bus interface descriptions (gdbus-codegen…)
# Afterwards: `systemctl daemon-reload; systemctl --user daemon-reload` (see docs/units.md).
# As a normal user (not root, no DESTDIR) it installs, with DATA=${XDG_DATA_HOME:-$HOME/.local/share}:
#   $PREFIX/bin/schedd, $PREFIX/share/man/…, $PREFIX/share/doc/schedd/…, $PREFIX/share/dbus-1/interfaces/…
#   $DATA/systemd/user/schedd.service                     where the user manager looks
#   $DATA/dbus-1/services/org.schedd.Scheduler1.service   where the session bus looks (activation
#                                                         through SystemdService=, or Exec= without systemd)
#   $DATA/bash-completion/completions/schedd, $DATA/fish/vendor_completions.d/schedd.fish,
#   $PREFIX/share/zsh/site-functions/_schedd               (add that directory to zsh's fpath)
# and neither the system unit nor the system-bus policy (kiosk mode needs root).
set -euo pipefail
cd "$(dirname "$0")/.."

PREFIX="${PREFIX:-}"
DESTDIR="${DESTDIR:-}"
BINARY="${BINARY:-}"
SYSTEM_USER="${SYSTEM_USER:-schedd}"
SYSTEM_GROUP="${SYSTEM_GROUP:-}"
create_user=no
build=yes
for arg in "$@"; do
  case "$arg" in
    PREFIX=*) PREFIX="${arg#PREFIX=}" ;;
    DESTDIR=*) DESTDIR="${arg#DESTDIR=}" ;;
    BINARY=*) BINARY="${arg#BINARY=}" ;;
    SYSTEM_USER=*) SYSTEM_USER="${arg#SYSTEM_USER=}" ;;
    SYSTEM_GROUP=*) SYSTEM_GROUP="${arg#SYSTEM_GROUP=}" ;;
    --create-user) create_user=yes ;;
    --no-build) build=no ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
  esac
done
# Per user: not root and not staging a package. Everything goes into $HOME.
user_mode=no
if [ "$(id -u)" -ne 0 ] && [ -z "$DESTDIR" ]; then user_mode=yes; fi
if [ -z "$PREFIX" ]; then
  if [ "$user_mode" = yes ]; then PREFIX="$HOME/.local"; else PREFIX=/usr/local; fi
fi
case "$PREFIX" in /*) ;; *) echo "install.sh: PREFIX must be an absolute path, not '$PREFIX'" >&2; exit 2 ;; esac
SYSTEM_GROUP="${SYSTEM_GROUP:-$SYSTEM_USER}"
for name in "$SYSTEM_USER" "$SYSTEM_GROUP"; do
  case "$name" in ''|*[!a-z0-9_-]*) echo "install.sh: SYSTEM_USER/SYSTEM_GROUP must be plain names, not '$name'" >&2; exit 2 ;; esac
done
PREFIX="${PREFIX%/}"
if [ "$user_mode" = yes ]; then
  home="$(cd "$HOME" && pwd -P)"
  case "$(realpath -m "$PREFIX")/" in
    "$home"/*) ;;
    *) echo "install.sh: as a normal user schedd installs into your home only; PREFIX '$PREFIX' is outside $HOME" \
            "(use PREFIX=\$HOME/.local, or run as root for a system-wide install)" >&2; exit 2 ;;
  esac
  [ "$create_user" = no ] || { echo "install.sh: --create-user needs root (kiosk mode is system-wide)" >&2; exit 2; }
  datahome="${XDG_DATA_HOME:-$HOME/.local/share}"
  case "$datahome" in /*) ;; *) datahome="$HOME/.local/share" ;; esac
fi

if [ -z "$BINARY" ]; then
  BINARY=.build/release/schedd
  if [ ! -x "$BINARY" ] && [ "$build" = yes ]; then
    echo "install.sh: building schedd (release)" >&2
    swift build -c release --static-swift-stdlib --product schedd >&2
  fi
fi
[ -x "$BINARY" ] || { echo "install.sh: no executable at '$BINARY' (build it or pass BINARY=…)" >&2; exit 1; }

if [ "$PREFIX" = /usr ]; then policydir="$PREFIX/share/dbus-1/system.d"; else policydir=/etc/dbus-1/system.d; fi
bindir="$PREFIX/bin"
docdir="$PREFIX/share/doc/schedd"

# Units name /usr/local/bin/schedd and User=schedd; rewrite both for this installation.
render() {
  sed -e "s#/usr/local/bin/schedd#$bindir/schedd#g" -e "s#file:///usr/local/share/doc/schedd/#file://$docdir/#g" \
      -e "s#^User=schedd\$#User=$SYSTEM_USER#" -e "s#^Group=schedd\$#Group=$SYSTEM_GROUP#" \
      -e "s#<policy user=\"schedd\">#<policy user=\"$SYSTEM_USER\">#" \
      -e "s#<policy group=\"schedd\">#<policy group=\"$SYSTEM_GROUP\">#" "$1"
}

put() {  # put SOURCE-FILE DEST-PATH MODE (rendered)
  local dest="$DESTDIR$2"
  install -d -m 0755 "$(dirname "$dest")"
  render "$1" > "$dest.tmp.$$"
  chmod "$3" "$dest.tmp.$$"
  mv -f "$dest.tmp.$$" "$dest"
  echo "installed $dest"
}

install -d -m 0755 "$DESTDIR$bindir"
install -m 0755 "$BINARY" "$DESTDIR$bindir/schedd"
echo "installed $DESTDIR$bindir/schedd"
if [ "$user_mode" = yes ]; then
  # Where the user manager (systemd.unit(5), "User Unit Search Path": $XDG_DATA_HOME/systemd/user) and
  # the session bus (<standard_session_servicedirs/>: $XDG_DATA_HOME/dbus-1/services) look.
  put units/schedd.service "$datahome/systemd/user/schedd.service" 0644
  put units/org.schedd.Scheduler1.service "$datahome/dbus-1/services/org.schedd.Scheduler1.service" 0644
else
  put units/schedd.service "$PREFIX/lib/systemd/user/schedd.service" 0644
  put units/schedd-system.service "$PREFIX/lib/systemd/system/schedd-system.service" 0644
  put units/org.schedd.Scheduler1.service "$PREFIX/share/dbus-1/services/org.schedd.Scheduler1.service" 0644
  put units/org.schedd.Scheduler1.conf "$policydir/org.schedd.Scheduler1.conf" 0644
fi

# Manual pages and shell completions, generated from the command table (scripts/generate-cli-docs.sh).
copy() {  # copy SOURCE-FILE DEST-PATH (as is)
  install -d -m 0755 "$DESTDIR$(dirname "$2")"
  install -m 0644 "$1" "$DESTDIR$2"
  echo "installed $DESTDIR$2"
}
copy man/schedd.1 "$PREFIX/share/man/man1/schedd.1"
copy man/schedd-push.5 "$PREFIX/share/man/man5/schedd-push.5"
if [ "$user_mode" = yes ]; then   # the per-user directories bash-completion and fish search
  copy completions/schedd.bash "${BASH_COMPLETION_USER_DIR:-$datahome/bash-completion}/completions/schedd"
  copy completions/schedd.fish "$datahome/fish/vendor_completions.d/schedd.fish"
else
  copy completions/schedd.bash "$PREFIX/share/bash-completion/completions/schedd"
  copy completions/schedd.fish "$PREFIX/share/fish/vendor_completions.d/schedd.fish"
fi
copy completions/_schedd "$PREFIX/share/zsh/site-functions/_schedd"
# The documentation the units' Documentation= names (file://$PREFIX/share/doc/schedd/units.md).
copy README.md "$docdir/README.md"
for page in docs/*.md docs/*.png; do copy "$page" "$docdir/$(basename "$page")"; done
# Interface descriptions for client generators (docs/dbus-interfaces.md), where gdbus-codegen's users look.
for xml in interfaces/*.xml; do copy "$xml" "$PREFIX/share/dbus-1/interfaces/$(basename "$xml")"; done

if [ "$user_mode" = yes ]; then
  cat <<MSG
Installed schedd for $(id -un 2>/dev/null || id -u) only (nothing outside $HOME). Next:
  systemd user manager:  systemctl --user daemon-reload && systemctl --user enable --now schedd
                         (or nothing: the first call starts it through D-Bus activation)
  without systemd:       the session bus starts '$bindir/schedd run' on the first call (Exec= of
                         $datahome/dbus-1/services/org.schedd.Scheduler1.service)
  check:                 schedd list
MSG
  case ":$PATH:" in *":$bindir:"*) ;; *) echo "  note: $bindir is not on your PATH; add it: export PATH=\"$bindir:\$PATH\"" ;; esac
  echo "  zsh completion: add $PREFIX/share/zsh/site-functions to fpath. Uninstall: docs/units.md"
  exit 0
fi

if [ "$create_user" = yes ]; then
  if [ -n "$DESTDIR" ]; then echo "install.sh: --create-user ignored with DESTDIR (a package creates it)" >&2; exit 0; fi
  getent group "$SYSTEM_GROUP" >/dev/null || groupadd --system "$SYSTEM_GROUP"
  getent passwd "$SYSTEM_USER" >/dev/null || useradd --system --gid "$SYSTEM_GROUP" --home-dir /var/lib/schedd \
      --no-create-home --shell /usr/sbin/nologin --comment "schedd notification scheduler" "$SYSTEM_USER"
  echo "system user '$SYSTEM_USER' and group '$SYSTEM_GROUP' present; let a user call schedd: usermod -aG $SYSTEM_GROUP USER"
fi
