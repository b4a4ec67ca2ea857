//! Process and store helpers shared by the fault-injection tests of the gateway
//! (`tests/gateway/faults.rs`) and of the CLI (`mcp-bastion/tests/cli/faults.rs`, which
//! includes this file by path).

use std::io::BufRead as _;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// `true` while process `pid` exists and is not a zombie (`/proc/PID/stat` state).
pub(crate) fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
    })
}

/// The pid the fault server wrote to its log (`pid N`, first line).
pub(crate) fn server_pid(log: &Path) -> u32 {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("pid ")?.parse().ok())
        .expect("the server logged its pid")
}

/// A `python3` process holding an exclusive `SQLite` lock on `db` (as a second writer,
/// e.g. another gateway or a backup tool, would) until its stdin is closed.
pub(crate) fn lock_store(db: &Path) -> Child {
    let script = "import sqlite3,sys\nc=sqlite3.connect(sys.argv[1],isolation_level=None)\nc.execute('BEGIN EXCLUSIVE')\nprint('locked',flush=True)\nsys.stdin.read()\n";
    let mut child = Command::new("python3")
        .args(["-c", script, &db.display().to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "locked");
    child
}

/// Ends the lock of [`lock_store`].
pub(crate) fn unlock_store(mut locker: Child) {
    drop(locker.stdin.take());
    let _ = locker.wait();
}
