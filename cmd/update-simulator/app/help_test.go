package app

import (
	"bytes"
	"context"
	"strings"
	"testing"

	logsapi "k8s.io/component-base/logs/api/v1"

	"github.com/update-status/apiserver/internal/clitest"
)

func init() {
	// Every Run applies the logging flags, as the binary does once; the
	// tests run it several times, always with the same (default) flags.
	logsapi.ReapplyHandling = logsapi.ReapplyHandlingIgnoreUnchanged
}

func TestHelpShowsKlogFlagsOnlyUnderLogging(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), []string{"--help"}, &out, &errOut); code != 0 {
		t.Fatalf("exit code %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "Simulation flags:") || !strings.Contains(out.String(), "--nodes int") {
		t.Errorf("--help lacks the simulation flags:\n%s", out.String())
	}
	clitest.CheckKlogFlags(t, out.String(), true)
}
