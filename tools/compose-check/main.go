// compose-check loads a Compose file with the Compose project's own loader (compose-go, what
// `docker compose config` runs): schema validation, interpolation of ${VAR:-default}, merges and
// anchors, normalization and the consistency checks (every depends_on, network and volume exists).
// It prints the loaded project as JSON, as `docker compose config --format json` does, or the
// loader's error and exits 1. Usage: compose-check <compose file>
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: compose-check <compose file>")
		os.Exit(2)
	}
	file, err := filepath.Abs(os.Args[1])
	if err != nil {
		fail(err)
	}
	options, err := cli.NewProjectOptions(
		[]string{file},
		cli.WithWorkingDirectory(filepath.Dir(file)),
		// Only the environment the caller gives, so the defaults in the file are what is checked.
		cli.WithOsEnv,
		cli.WithInterpolation(true),
		cli.WithNormalization(true),
		cli.WithConsistency(true),
		cli.WithResolvedPaths(true),
	)
	if err != nil {
		fail(err)
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		fail(err)
	}
	out, err := project.MarshalJSON()
	if err != nil {
		fail(err)
	}
	fmt.Println(string(out))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
