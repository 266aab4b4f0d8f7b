#pragma once

// Shutdown signals for daemons: block SIGTERM/SIGINT/SIGHUP in every thread
// (call first thing in main, before any thread exists) and wait for one of
// them on the main thread.

namespace eb::common {

// Blocks SIGTERM, SIGINT and SIGHUP for this thread and the threads it
// creates later; SIGPIPE is ignored (writes to closed sockets return EPIPE).
void BlockShutdownSignals();

// Waits until one of the blocked signals arrives and returns its number.
int WaitForShutdownSignal();

}  // namespace eb::common
