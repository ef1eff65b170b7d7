# Cost hints for ctest: the slowest tests start first on a fresh clone, where ctest has no
# timings of its own yet (later runs use build/Testing/Temporary/CTestCostData.txt). Seconds
# of one suite run on 2 cores (`ctest -j2`); only their order matters. A name that is no test
# is ignored by ctest; a unit test checks that each is one.
set_tests_properties("the grader grades every fixture as the fixture says and leaves the folder untouched" PROPERTIES COST 143)
set_tests_properties("a class of 50 is graded in isolation and an interrupted gradebook resumes" PROPERTIES COST 38)
set_tests_properties("Gradescope and PrairieLearn: 3 of 10 labs right scores 3 of 10, each lab's reason in its test" PROPERTIES COST 29)
set_tests_properties("Gradescope and PrairieLearn: whatever goes wrong, a valid results file says why" PROPERTIES COST 27)
set_tests_properties("a stress schedule that goes wrong names its seed and a command that fails again, and never fails a solution" PROPERTIES COST 22)
set_tests_properties("lab09 too many groups: the naive barriers give up within their budget, no hang" PROPERTIES COST 21)
set_tests_properties("GitHub Classroom: each lab's step, run as written, scores 3 of 10 for 3 labs right" PROPERTIES COST 21)
set_tests_properties("without hbcheck a fence bug is never a pass: the grading is refused, or its rows fail with --no-hbcheck" PROPERTIES COST 20)
set_tests_properties("grading the solutions passes every gradable lab" PROPERTIES COST 18)
set_tests_properties("the gradebook is never emptied, shared or lost without a word" PROPERTIES COST 16)
set_tests_properties("every lab's solutions are clean on Oclgrind" PROPERTIES COST 16)
set_tests_properties("a graded kernel is one program text: no checker's macros, includes only beside it, __local within a GPU's" PROPERTIES COST 15)
set_tests_properties("a class graded with -j 2 gives the gradebook of -j 1, in order" PROPERTIES COST 15)
set_tests_properties("grading the starter fails lab 01 on its TODO kernel and not by a crash or a build error" PROPERTIES COST 14)
set_tests_properties("Makefile.lecture builds lab 01 with g++ alone, and a copy of lab 01 under a new number is a lab: built, listed by the grader, conformant" PROPERTIES COST 70)
# The tests that grade every lab, labs 09 and 10's spinning barriers among them, take turns: two
# graders at once, each with two jobs of two POCL threads beside Oclgrind's, are more load than a
# grading machine meets, and there a resident group's thread can lose its core for longer than a
# barrier's budget (docs/benchmarks.md, the suite's last runs).
set_tests_properties("the grader grades every fixture as the fixture says and leaves the folder untouched" PROPERTIES RESOURCE_LOCK graders)
set_tests_properties("grading the solutions passes every gradable lab" PROPERTIES RESOURCE_LOCK graders)
set_tests_properties("a class graded with -j 2 gives the gradebook of -j 1, in order" PROPERTIES RESOURCE_LOCK graders)
set_tests_properties("Gradescope and PrairieLearn: 3 of 10 labs right scores 3 of 10, each lab's reason in its test" PROPERTIES RESOURCE_LOCK graders)
set_tests_properties("GitHub Classroom: each lab's step, run as written, scores 3 of 10 for 3 labs right" PROPERTIES RESOURCE_LOCK graders)
set_tests_properties("three shards graded at once merge into the gradebook one run writes, JUnit names unclashed, and shards missing or graded otherwise are refused" PROPERTIES RESOURCE_LOCK graders)
