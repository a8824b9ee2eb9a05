package localstack

import (
	"bytes"
	"testing"
)

func TestPrefixEnd(t *testing.T) {
	tests := []struct {
		prefix, want []byte
	}{
		{[]byte("/registry/"), []byte("/registry0")},
		{[]byte("a"), []byte("b")},
		{[]byte{'a', 0xff}, []byte("b")},
		{[]byte{0xff, 0xff}, []byte{0}},
		{nil, []byte{0}},
	}
	for _, tt := range tests {
		if got := prefixEnd(tt.prefix); !bytes.Equal(got, tt.want) {
			t.Errorf("prefixEnd(%q) = %q, want %q", tt.prefix, got, tt.want)
		}
	}
}
