package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"k8s.io/component-base/cli"

	"github.com/update-status/apiserver/internal/clitest"
)

func TestHelpShowsKlogFlagsOnlyUnderLogging(t *testing.T) {
	cmd := newCommand(context.Background())
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"--help"})
	if err := cli.RunNoErrOutput(cmd); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Local-up flags:") || !strings.Contains(out.String(), "--nodes int") {
		t.Errorf("--help lacks the flags of local-up:\n%s", out.String())
	}
	clitest.CheckKlogFlags(t, out.String(), true)
}
