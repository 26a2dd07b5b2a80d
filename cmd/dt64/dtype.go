package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newDtypeCmd) }

func newDtypeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "dtype SPEC",
		Short: "Validate a data type and print its Zarr v3 JSON and NumPy forms",
		Long: `Validate a data type and print it both ways.

SPEC is a NumPy dtype string or a Zarr v3 data_type JSON object. A NumPy
string without '<' or '>' is taken as little endian.`,
		Example: `  dt64 dtype '<M8[10us]'
  dt64 dtype 'timedelta64[25h]'
  dt64 dtype '{"name":"numpy.datetime64","configuration":{"unit":"ns","scale_factor":1}}'`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, order, err := parseSpec(args[0])
			if err != nil {
				return err
			}
			js, err := d.MarshalJSON()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "zarr:  %s\n", js)
			fmt.Fprintf(out, "numpy: %s\n", d.NumPy(order))
			return nil
		},
	}
}

// exactArgs is cobra.ExactArgs with the failure marked as a usage error.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}
