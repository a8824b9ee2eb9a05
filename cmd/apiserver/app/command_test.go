package app

import (
	"bytes"
	"context"
	"testing"

	"k8s.io/component-base/cli"

	"github.com/update-status/apiserver/internal/clitest"
)

func TestHelpShowsKlogFlagsOnlyUnderLogging(t *testing.T) {
	// Through cli.Run's twin, as main runs it: it adds the rest of klog's
	// flags, which the command accepts but does not print.
	cmd := NewCommand(context.Background())
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"--help"})
	if err := cli.RunNoErrOutput(cmd); err != nil {
		t.Fatal(err)
	}
	clitest.CheckKlogFlags(t, out.String(), true)
}
