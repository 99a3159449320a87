// The `h264` command-line tool: one file per subcommand, dispatched from this table.
import Foundation

let commands: [any CLICommand.Type] = [
    NalsCommand.self,
    TraceCommand.self,
    EditCommand.self,
    ConvertCommand.self,
    InspectCommand.self,
    EncodeCommand.self,
    RTPSendCommand.self,
    RTPReceiveCommand.self,
    RTSPPullCommand.self,
    TSSendCommand.self,
    TSReceiveCommand.self,
    BuildStreamCommand.self,
    SegmentCommand.self,
    CheckCommand.self,
    ServeCommand.self,
]

exit(CLI.main(arguments: Array(CommandLine.arguments.dropFirst()), commands: commands))
