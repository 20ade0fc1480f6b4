// The timeline's CSV (cli/timeline_csv.h): a header, one line per unit in the order given,
// times from the first start; the extension picks the form.
#include <catch2/catch.hpp>

#include "cli/timeline_csv.h"

using tj::samples::TimelineUnit;

TEST_CASE("timeline CSV: units from the first start, with durations", "[cli][timeline]") {
  std::vector<TimelineUnit> units(2);
  units[0].unit = 4, units[0].sm = 7, units[0].cta = 12, units[0].start = 1000, units[0].end = 1250;
  units[1].unit = 0, units[1].sm = 3, units[1].cta = 1, units[1].start = 1100, units[1].end = 1400;
  CHECK(tj::cli::timeline_csv(units) ==
        "cta,sm,unit,start_ns,end_ns,duration_ns\n"
        "12,7,4,0,250,250\n"
        "1,3,0,100,400,300\n");
  CHECK(tj::cli::timeline_csv({}) == "cta,sm,unit,start_ns,end_ns,duration_ns\n");
}

TEST_CASE("timeline CSV: chosen by the .csv extension only", "[cli][timeline]") {
  CHECK(tj::cli::is_csv_path("out.csv"));
  CHECK(tj::cli::is_csv_path("dir/Units.CSV"));
  CHECK_FALSE(tj::cli::is_csv_path("out.svg"));
  CHECK_FALSE(tj::cli::is_csv_path("csv"));
  CHECK_FALSE(tj::cli::is_csv_path("out.csv.svg"));
}
