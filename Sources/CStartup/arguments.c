/* The command line, answered without reading /proc.

   The Swift runtime asks `_swift_stdlib_getUnsafeArgvArgc` for argv when `CommandLine` is first
   used. Its own definition (CommandLine.cpp in the toolchain's libswiftCore.a, Swift 6.3) comes
   with a static initializer that, in every process and before main, opens /proc/self/maps, parses
   it with sscanf to find the stack, and walks back from `environ` to argv: about 56 K
   instructions and an open, read and close for programs that never look at their arguments (a
   refused request's whole run is about 220 K). glibc passes argc, argv and envp to every function
   in `.init_array`, in static and dynamic executables alike, so the arguments are kept here
   and the runtime's question answered from them. Defined in an object of our own, the symbol is
   resolved before the linker searches the archive, which then never pulls that member in (a
   future runtime that needs more from it fails the link with a duplicate symbol, not silently).
   Debug builds link the shared libswiftCore, whose getter is hidden: it keeps answering for
   itself there, and these definitions go unused (tests/release-test.sh checks the static case). */

static char **startup_argv;
static int startup_argc;
static char **override_argv;
static int override_argc;

static void keep_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    startup_argc = argc;
    startup_argv = argv;
}

__attribute__((used, section(".init_array"))) static void (*const keep_arguments_entry)(int, char **, char **) =
    keep_arguments;

char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen) {
    static char *none[] = {0};
    if (override_argv) {
        *outArgLen = override_argc;
        return override_argv;
    }
    if (startup_argv) {
        *outArgLen = startup_argc;
        return startup_argv;
    }
    *outArgLen = 0;
    return none;
}

void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc) {
    override_argv = argv;
    override_argc = argc;
}
