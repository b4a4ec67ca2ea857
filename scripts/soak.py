#!/usr/bin/env python3
"""Soak test of `mcp-bastion wrap` (issue 9 §5): mixed traffic for DURATION seconds
(default 1800) through one gateway around the fault server, sampling the gateway's
resident memory (VmRSS, VmHWM) and open file descriptors every INTERVAL seconds.

Traffic per round: echo calls with small and 200 KiB texts, tools/list, ping, a
strict-parse refusal (duplicate key), an oversized host frame (2 MiB), an unknown tool,
and a request that times out upstream (tool `slow`, 2 s timeout) so cancellations flow.

Usage: scripts/soak.py [--binary PATH] [--duration SECS] [--interval SECS]
Output: CSV lines `elapsed_s,rss_kib,hwm_kib,fds,requests`, then a summary of the first
sample after warm-up (60 s) and the last one.
"""

from bastion_drive import Gateway, soak, soak_args


def round_of_traffic(g, n):
    big = "b" * (200 * 1024)
    for i in range(20):
        g.call("echo", "m%d-%d" % (n, i))
    g.call("echo", big)
    g.request("tools/list")
    g.request("ping")
    g.send_bytes(b'{"jsonrpc":"2.0","id":"dup","id":"dup2","method":"ping"}\n')
    g.recv()
    g.send_bytes(b'{"jsonrpc":"2.0","id":"over","method":"ping","params":{"x":"' + b"o" * (2 << 20) + b'"}}\n')
    g.recv()
    g.request("tools/call", {"name": "no_such_tool", "arguments": {}})
    if n % 10 == 0:
        g.call("slow")
    return 27


def main():
    args = soak_args(__doc__)
    g = Gateway(args.binary, config="\n[limits]\ntool_call_timeout_ms = 2000\n")
    g.init()
    def sample():
        s = g.status()
        return s["VmRSS"], s["VmHWM"], s["fds"]

    samples, _ = soak(args.duration, args.interval, ("rss_kib", "hwm_kib", "fds"), sample,
                      lambda n: round_of_traffic(g, n))
    code = g.close()
    warm = next((s for s in samples if s[0] >= 60), samples[0])
    last = samples[-1]
    print("# after warm-up: t=%.0fs rss=%d KiB fds=%d; end: t=%.0fs rss=%d KiB fds=%d; "
          "peak %d KiB; %d requests; gateway exit %d"
          % (warm[0], warm[1], warm[3], last[0], last[1], last[3], last[2], last[4], code))


if __name__ == "__main__":
    main()
