import Shared

// The operator's hands (never routed by nginx). See `frontdoor-admin --help`.
Admin.main(Array(CommandLine.arguments.dropFirst()))
