# A link with delay for benches (sourced, not run): two network namespaces joined by Benchmarks/LinkDelay, a small
# program of the project's own that moves IP packets between two TUN devices after a fixed one-way delay and through
# a rate-limited bottleneck with a bounded queue (this kernel has no netem). Needs root, iproute2 and /dev/net/tun.
#
# Before sourcing, set WORK (a scratch folder) and LINK_DELAY (the built LinkDelay). Then:
#   reason=$(netns_link_unavailable)   # why namespaces cannot be used here, or empty
#   link_up ONE-WAY-DELAY-MS RATE-MBIT # namespaces $NS_SERVER ($SERVER_ADDR) and $NS_CLIENT ($CLIENT_ADDR)
#   in_server CMD... / in_client CMD...
#   link_down                          # ends LinkDelay and deletes both namespaces; also call it from an EXIT trap
# Names carry this shell's PID and a counter, so several runs on one machine never meet; the first link_up deletes
# those of benches killed before their EXIT trap ran (shells no longer running).
SERVER_ADDR=10.200.0.1
CLIENT_ADDR=10.200.0.2
NS_SERVER=""
NS_CLIENT=""
LINK_PID=""
LINK_SEQ=0

netns_link_unavailable() {
    if [ "$(id -u)" != 0 ]; then echo "not root (network namespaces and TUN devices need root)"; return; fi
    if ! command -v ip >/dev/null; then echo "no ip command (install iproute2)"; return; fi
    if [ ! -c /dev/net/tun ]; then echo "no /dev/net/tun (TUN devices are not available)"; return; fi
    local probe="rcp-probe-$$"
    if ! ip netns add "$probe" 2>/dev/null; then echo "creating a network namespace is not allowed here"; return; fi
    ip netns del "$probe" 2>/dev/null || true
}

remove_leftover_links() { # the namespaces of earlier benches killed before their EXIT trap ran (dead shell PIDs)
    local ns pid
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
        case "$ns" in
            rcp-srv-*-* | rcp-cli-*-*) ;;
            *) continue ;;
        esac
        pid=${ns#rcp-???-}
        pid=${pid%%-*}
        [ "$pid" != "$$" ] && ! kill -0 "$pid" 2>/dev/null && ip netns del "$ns" 2>/dev/null || true
    done
}

link_up() { # $1 one-way delay in ms, $2 rate in Mbit/s
    [ "$LINK_SEQ" -eq 0 ] && remove_leftover_links
    LINK_SEQ=$((LINK_SEQ + 1))
    NS_SERVER="rcp-srv-$$-$LINK_SEQ"
    NS_CLIENT="rcp-cli-$$-$LINK_SEQ"
    local tun_server="rls$$x$LINK_SEQ" tun_client="rlc$$x$LINK_SEQ"
    ip netns add "$NS_SERVER"
    ip netns add "$NS_CLIENT"
    "$LINK_DELAY" "$tun_server" "$tun_client" "$1" "$2" >"$WORK/link.out" 2>"$WORK/link.err" &
    LINK_PID=$!
    for _ in $(seq 100); do
        grep -q '^ready$' "$WORK/link.out" 2>/dev/null && break
        kill -0 "$LINK_PID" 2>/dev/null || { echo "LinkDelay failed: $(cat "$WORK/link.err")" >&2; return 1; }
        sleep 0.05
    done
    ip link set "$tun_server" netns "$NS_SERVER"
    ip link set "$tun_client" netns "$NS_CLIENT"
    ip -n "$NS_SERVER" addr add "$SERVER_ADDR/32" peer "$CLIENT_ADDR" dev "$tun_server"
    ip -n "$NS_CLIENT" addr add "$CLIENT_ADDR/32" peer "$SERVER_ADDR" dev "$tun_client"
    for ns in "$NS_SERVER" "$NS_CLIENT"; do ip -n "$ns" link set lo up; done
    ip -n "$NS_SERVER" link set "$tun_server" up
    ip -n "$NS_CLIENT" link set "$tun_client" up
}

link_down() {
    if [ -n "$LINK_PID" ]; then
        kill "$LINK_PID" 2>/dev/null || true
        wait "$LINK_PID" 2>/dev/null || true
        LINK_PID=""
    fi
    for ns in "$NS_SERVER" "$NS_CLIENT"; do
        [ -n "$ns" ] || continue
        # Anything still running inside (a server left by an interrupted run) goes with its namespace.
        for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
        ip netns del "$ns" 2>/dev/null || true
    done
    NS_SERVER=""
    NS_CLIENT=""
}

in_server() { ip netns exec "$NS_SERVER" "$@"; }
in_client() { ip netns exec "$NS_CLIENT" "$@"; }
