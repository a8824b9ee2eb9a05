package app

import (
	"bytes"
	"context"
	"testing"

	"github.com/update-status/apiserver/internal/clitest"
)

// update-status logs little (web's warnings, the retries of a watch) and has
// no logging flags: none of klog's flags shows in any --help.
func TestHelpShowsNoKlogFlags(t *testing.T) {
	args := [][]string{{"--help"}}
	for _, c := range NewCommand(Deps{}).Commands() {
		args = append(args, []string{c.Name(), "--help"})
	}
	for _, a := range args {
		t.Run(a[0], func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := Run(context.Background(), Deps{Out: &out, ErrOut: &errOut}, a); code != 0 {
				t.Fatalf("%v: exit code %d: %s", a, code, errOut.String())
			}
			if out.Len() == 0 {
				t.Fatalf("%v printed nothing", a)
			}
			clitest.CheckKlogFlags(t, out.String(), false)
		})
	}
}
