// Package registrytest helps the tests of the registry's packages.
package registrytest

import (
	"io"

	"k8s.io/apimachinery/pkg/runtime"
)

// Cacheable wraps an object as the watch cache wraps the objects of its
// events.
type Cacheable struct{ runtime.Object }

// CacheEncode implements runtime.CacheableObject.
func (c Cacheable) CacheEncode(_ runtime.Identifier, encode func(runtime.Object, io.Writer) error, w io.Writer) error {
	return encode(c.Object, w)
}

// GetObject implements runtime.CacheableObject.
func (c Cacheable) GetObject() runtime.Object { return c.Object }
