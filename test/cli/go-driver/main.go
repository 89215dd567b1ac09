// Command go-driver runs examples/go's program inline under the real Pulumi CLI, through the Go
// SDK's automation API: the SDK serves the program from this process and runs `pulumi <command>
// --client <its address>`. The Go language host is not built here (its module is not served), so
// this is how the real-engine suite reaches a Go program; the engine, the plugins and the backend
// are the CLI's own.
//
// Usage: go-driver <pulumi root (holds bin/pulumi)> <project dir> <stack> preview|up|refresh|destroy
package main

import (
	"context"
	"fmt"
	"os"

	"dbcloud-stop-at-night-go/stopatnight"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optrefresh"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
)

func run(ctx context.Context, root, projectDir, stackName, command string) error {
	cli, err := auto.NewPulumiCommand(&auto.PulumiCommandOptions{Root: root})
	if err != nil {
		return err
	}
	// The project is the folder's Pulumi.yaml (its name, and the plugin it names).
	stack, err := auto.SelectStackInlineSource(ctx, stackName, "", stopatnight.Program,
		auto.WorkDir(projectDir), auto.Pulumi(cli))
	if err != nil {
		return err
	}
	out := os.Stdout
	switch command {
	case "preview":
		_, err = stack.Preview(ctx, optpreview.ProgressStreams(out))
	case "up":
		_, err = stack.Up(ctx, optup.ProgressStreams(out))
	case "refresh":
		_, err = stack.Refresh(ctx, optrefresh.ProgressStreams(out))
	case "destroy":
		_, err = stack.Destroy(ctx, optdestroy.ProgressStreams(out))
	default:
		err = fmt.Errorf("unknown command %q", command)
	}
	return err
}

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: go-driver <pulumi root> <project dir> <stack> preview|up|refresh|destroy")
		os.Exit(2)
	}
	if err := run(context.Background(), os.Args[1], os.Args[2], os.Args[3], os.Args[4]); err != nil {
		fmt.Fprintln(os.Stderr, "go-driver:", err)
		os.Exit(1)
	}
}
