//go:build !unix

package fuzz

import (
	"errors"
	"os"
)

func mkfifo(string) error { return errors.ErrUnsupported }

func openFIFOWriter(string) (*os.File, error) { return nil, errors.ErrUnsupported }
