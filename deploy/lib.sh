# Shared by deploy/run and deploy/test. Source it; it defines functions only.

repo_root() { cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# ensure_packages PKG...: installs the ones missing (apt-get update once, only when needed).
ensure_packages() {
    local missing=()
    local p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "installing: ${missing[*]}"
    if [ -z "${GALLERY_APT_UPDATED:-}" ]; then
        as_root apt-get update -qq || true
        export GALLERY_APT_UPDATED=1
    fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=300 "${missing[@]}"
}

# libsqlite3-dev: the library index; libssl-dev: libcrypto's SHA-256 for content versions and
# libssl for originals fetched over https; ca-certificates: whom those origins are checked against.
RUNTIME_PACKAGES=(libfcgi-dev zlib1g-dev libsqlite3-dev libssl-dev ca-certificates nginx spawn-fcgi libjs-leaflet libjs-leaflet.markercluster)
# The demo's wallpaper packages are never installed: deploy/demo/make-demo downloads them and
# unpacks only the photos that deploy/demo/photos.list names (dpkg-deb needs no extra package).
TEST_PACKAGES=(libjpeg-turbo-progs libvips-tools python3-pil pngcheck imagemagick chromium wrk hyperfine curl webp libde265-examples unzip)

# pid_alive PIDFILE NAME: true when the pid file names a live process whose command is NAME.
pid_alive() {
    local pidfile="$1" name="$2" pid
    [ -s "$pidfile" ] || return 1
    pid="$(cat "$pidfile")"
    proc_running "$pid" || return 1
    grep -q "$name" "/proc/$pid/cmdline" 2>/dev/null
}

# proc_running PID: the process exists and is not a zombie (spawn-fcgi's children are
# reparented; in a container nobody may reap them).
proc_running() {
    local state
    state="$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" || return 1
    [ -n "$state" ] && [ "$state" != "Z" ]
}

# stop_pidfile PIDFILE NAME: SIGTERM, wait up to 30 s, then SIGKILL; removes the pid file.
stop_pidfile() {
    local pidfile="$1" name="$2" pid i
    if pid_alive "$pidfile" "$name"; then
        pid="$(cat "$pidfile")"
        kill -TERM "$pid" 2>/dev/null || true
        for i in $(seq 1 300); do
            proc_running "$pid" || break
            sleep 0.1
        done
        if proc_running "$pid"; then
            echo "$name ($pid) did not stop in 30 s; killing it" >&2
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    rm -f "$pidfile"
}

# render_nginx_conf RUNDIR PORT SOCKET PUBLIC [LIBRARY]: writes RUNDIR/nginx.conf and
# RUNDIR/locations.conf. LIBRARY: the photo folder nginx streams originals from (its real path
# is used); without it that location serves nothing.
render_nginx_conf() {
    local run="$1" port="$2" socket="$3" public="$4" library="${5:-/nonexistent}" root user_line=""
    library="$(realpath -m "$library")"
    root="$(repo_root)"
    mkdir -p "$run/tmp" "$run/cache"
    if [ "$(id -u)" = 0 ]; then
        # Workers drop to nobody: they must be able to use their temp and cache folders.
        user_line="user nobody nogroup;"
        chown -R nobody:nogroup "$run/tmp" "$run/cache"
    fi
    sed -e "s|@PUBLIC@|$public|g" -e "s|@UPSTREAM@|gallery_app|g" -e "s|@LIBRARY@|$library|g" \
        "$root/deploy/nginx/gallery-locations.conf.in" > "$run/locations.conf"
    sed -e "s|@RUN@|$run|g" -e "s|@PORT@|$port|g" -e "s|@SOCKET@|$socket|g" \
        -e "s|@USER@|$user_line|g" -e "s|@LOCATIONS@|$run/locations.conf|g" \
        "$root/deploy/nginx/nginx.conf.in" > "$run/nginx.conf"
}
