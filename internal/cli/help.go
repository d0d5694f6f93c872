package cli

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/droidstar/droidstar/internal/manual"
)

// The commands' own topics: the environment they read and the codes they
// exit with are the command line's, so their pages live here.
var (
	//go:embed help-environment.md
	environmentTopic string
	//go:embed help-exit-codes.md
	exitCodesTopic string
)

// helpTopics is every page 'droidstar help TOPIC' shows, in the order the
// list shows them.
func helpTopics() []manual.Topic {
	return append(manual.Topics(),
		manual.Topic{Name: "environment", Markdown: environmentTopic},
		manual.Topic{Name: "exit-codes", Markdown: exitCodesTopic})
}

func findTopic(name string) (manual.Topic, bool) {
	topics := helpTopics()
	i := slices.IndexFunc(topics, func(t manual.Topic) bool { return t.Name == name })
	if i < 0 {
		return manual.Topic{}, false
	}
	return topics[i], true
}

// newHelpCmd is 'droidstar help': a command's help, as cobra's is, or a
// topic of the manual, laid out for the terminal (or plain).
func newHelpCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command | topic]",
		Short: "Help about any command, or a topic of the manual",
		Long: `Help prints a command's help, or one of the manual's topics: the reference for
the purpose language, the model, timeouts, devices, the store, the formats,
CI, the environment and the exit codes. The list is at the end of
'droidstar help'.`,
		Example: "  droidstar help\n  droidstar help purposes\n  droidstar help learn",
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, t := range helpTopics() {
				if strings.HasPrefix(t.Name, toComplete) {
					out = append(out, cobra.CompletionWithDesc(t.Name, t.Title()))
				}
			}
			for _, sub := range c.Root().Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return c.Root().Help()
			}
			if len(args) == 1 {
				if t, ok := findTopic(args[0]); ok {
					return manual.Render(e.stdout, t.Markdown, helpStyle(e))
				}
			}
			cmd, rest, err := c.Root().Find(args)
			if err != nil || cmd == c.Root() || len(rest) > 0 {
				return usageError("no command or help topic %q\nThe topics: %s. Run 'droidstar help' for the commands.",
					strings.Join(args, " "), strings.Join(topicNames(), ", "))
			}
			// As cobra's own help command: the flag list shows -h as --help does.
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		},
	}
}

func topicNames() []string {
	var names []string
	for _, t := range helpTopics() {
		names = append(names, t.Name)
	}
	return names
}

// helpStyle wraps a topic to the terminal's width, and plain at 80
// columns when stdout is no terminal (a pipe, a file, a pager).
func helpStyle(e *env) manual.Style {
	if e.stdoutWidth > 0 {
		return manual.Style{Width: e.stdoutWidth, Bold: true}
	}
	return manual.Style{Width: manual.DefaultWidth}
}

// topicsUsage is the root's usage with the topics listed after the
// commands (cobra's own template, plus the list).
func topicsUsage() string {
	var b strings.Builder
	topics := helpTopics()
	width := 0
	for _, t := range topics {
		width = max(width, len(t.Name))
	}
	for _, t := range topics {
		fmt.Fprintf(&b, "\n  %-*s %s", width+2, t.Name, t.Title())
	}
	list := strings.ReplaceAll(b.String(), "{{", "{{`{{`}}")
	return strings.Replace(usageTemplate,
		`{{if .HasAvailableSubCommands}}

Use "{{.CommandPath}} [command] --help"`,
		`{{if not .HasParent}}

Help topics (droidstar help TOPIC):`+list+`{{end}}{{if .HasAvailableSubCommands}}

Use "{{.CommandPath}} [command] --help"`, 1)
}

// usageTemplate is cobra's default usage template (v1.10), which cobra
// does not export; help topics are listed by droidstar, not as cobra's
// "additional help topics" (commands that cannot run).
const usageTemplate = `Usage:{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{if gt (len .Aliases) 0}}

Aliases:
  {{.NameAndAliases}}{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}{{$cmds := .Commands}}{{if eq (len .Groups) 0}}

Available Commands:{{range $cmds}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{else}}{{range $group := .Groups}}

{{.Title}}{{range $cmds}}{{if (and (eq .GroupID $group.ID) (or .IsAvailableCommand (eq .Name "help")))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if not .AllChildCommandsHaveGroup}}

Additional Commands:{{range $cmds}}{{if (and (eq .GroupID "") (or .IsAvailableCommand (eq .Name "help")))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

Flags:
{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableInheritedFlags}}

Global Flags:
{{.InheritedFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableSubCommands}}

Use "{{.CommandPath}} [command] --help" for more information about a command.{{end}}
`
