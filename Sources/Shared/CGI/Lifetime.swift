#if canImport(Glibc)
import Glibc
#endif

/// Rule 9: fcgiwrap never times a program out, so each process bounds its own life.
public enum Lifetime {
    /// (Re)arms the ceiling: SIGALRM's default action ends the process wherever it is. The signal
    /// is unblocked too: a blocked mask is inherited across exec (a test runner's threads block
    /// it, and so may whatever starts fcgiwrap), and a blocked alarm never ends anything.
    public static func start(seconds: Int64) {
        var alarmOnly = sigset_t()
        sigemptyset(&alarmOnly)
        sigaddset(&alarmOnly, SIGALRM)
        sigprocmask(SIG_UNBLOCK, &alarmOnly, nil)
        signal(SIGALRM, SIG_DFL)
        alarm(UInt32(clamping: seconds))
    }

    /// Ends the conversation with fcgiwrap: it finishes the request when the program has closed
    /// both stdout and stderr, so work after this no longer holds the answer.
    public static func detachFromClient() {
        let devNull = open("/dev/null", O_RDWR | O_CLOEXEC)
        if devNull >= 0 {
            dup2(devNull, STDOUT_FILENO)
            dup2(devNull, STDERR_FILENO)
            close(devNull)
        } else {
            close(STDOUT_FILENO)
            close(STDERR_FILENO)
        }
    }
}
