package zarr_test

import (
	"context"
	"fmt"
	"log"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// ExampleWalk walks a hierarchy, opens its time arrays through Sub and
// reads its consolidated metadata.
func ExampleWalk() {
	ctx := context.Background()
	store := storage.NewDir("../testdata/zarr/groups/dataset_v3.zarr")
	nodes, err := zarr.Walk(ctx, store) // one List of the store
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("Zarr format", nodes[0].Format)
	for _, n := range nodes {
		if n.Kind == zarr.GroupNode {
			fmt.Printf("%q group %s\n", n.Path, n.Attributes)
			continue
		}
		fmt.Printf("%q array %s %v", n.Path, n.DataType, n.Shape)
		if n.DataType == "numpy.datetime64" {
			sub, err := storage.Sub(store, n.Path)
			if err != nil {
				log.Fatal(err)
			}
			a, err := zarr.Open(ctx, sub) // a time array dt64 reads
			if err != nil {
				log.Fatal(err)
			}
			fmt.Print(" ", a.Metadata().DataType)
		}
		fmt.Println()
	}
	consolidated, err := zarr.ReadConsolidated(ctx, store)
	fmt.Println(len(consolidated), "nodes in the consolidated metadata", err)
	// Output:
	// Zarr format 3
	// "" group {
	//     "title": "dt64 v3 group fixture",
	//     "Conventions": "CF-1.8",
	//     "history": "written by zarr-python 3.1.3",
	//     "version": 2
	//   }
	// "lat" array float32 [6]
	// "obs_count" array int16 [240]
	// "qc_flag" array bool [240]
	// "sub" group {
	//     "instrument": "barometer B-7",
	//     "height_m": 2.5
	//   }
	// "sub/obs_time" array int64 [50]
	// "sub/pressure" array float64 [50]
	// "sub/stamp" array numpy.datetime64 [30] datetime64[ms]
	// "temp" array float32 [240 6]
	// "time" array numpy.datetime64 [240] datetime64[s]
	// 10 nodes in the consolidated metadata <nil>
}
