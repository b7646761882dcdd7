#include "llm/unified_diff.h"

#include <gtest/gtest.h>

#include <string>

namespace kernelarc::llm {
namespace {

std::string numbered_lines(int count) {
  std::string text;
  for (int i = 1; i <= count; ++i) text += "line " + std::to_string(i) + "\n";
  return text;
}

std::string diff_error(const std::string& original, const std::string& diff) {
  try {
    apply_unified_diff(original, diff);
  } catch (const DiffError& error) {
    return error.what();
  }
  return "(no error)";
}

const std::string kKernel =
    "#include <cmath>\n"
    "\n"
    "void softmax(const float* x, float* y, int n) {\n"
    "  float max = x[0];\n"
    "  for (int i = 1; i < n; ++i) max = std::fmax(max, x[i]);\n"
    "  float sum = 0;\n"
    "  for (int i = 0; i < n; ++i) sum += std::exp(x[i] - max);\n"
    "  for (int i = 0; i < n; ++i) y[i] = std::exp(x[i] - max) / sum;\n"
    "}\n";

TEST(UnifiedDiff, AppliesHunksWithFileHeaders) {
  const std::string diff =
      "--- a/candidate.cpp\n"
      "+++ b/candidate.cpp\n"
      "@@ -1,2 +1,3 @@\n"
      " #include <cmath>\n"
      "+#include <cstdint>\n"
      " \n"
      "@@ -6,3 +7,4 @@\n"
      "   float sum = 0;\n"
      "   for (int i = 0; i < n; ++i) sum += std::exp(x[i] - max);\n"
      "-  for (int i = 0; i < n; ++i) y[i] = std::exp(x[i] - max) / sum;\n"
      "+  const float scale = 1.0f / sum;\n"
      "+  for (int i = 0; i < n; ++i) y[i] = std::exp(x[i] - max) * scale;\n";
  EXPECT_EQ(apply_unified_diff(kKernel, diff),
            "#include <cmath>\n"
            "#include <cstdint>\n"
            "\n"
            "void softmax(const float* x, float* y, int n) {\n"
            "  float max = x[0];\n"
            "  for (int i = 1; i < n; ++i) max = std::fmax(max, x[i]);\n"
            "  float sum = 0;\n"
            "  for (int i = 0; i < n; ++i) sum += std::exp(x[i] - max);\n"
            "  const float scale = 1.0f / sum;\n"
            "  for (int i = 0; i < n; ++i) y[i] = std::exp(x[i] - max) * scale;\n"
            "}\n");
}

TEST(UnifiedDiff, AppliesWithoutFileHeadersAndGitPreamble) {
  const std::string diff =
      "diff --git a/x b/x\n"
      "index 1234567..89abcde 100644\n"
      "@@ -2,3 +2,3 @@\n"
      " line 2\n"
      "-line 3\n"
      "+line three\n"
      " line 4\n";
  EXPECT_EQ(apply_unified_diff(numbered_lines(5), diff), "line 1\nline 2\nline three\nline 4\nline 5\n");
}

TEST(UnifiedDiff, FindsAHunkWhoseLineNumberIsWrong) {
  const std::string diff =
      "@@ -40,3 +40,3 @@\n"
      " line 19\n"
      "-line 20\n"
      "+line twenty\n"
      " line 21\n";
  std::string expected = numbered_lines(30);
  expected.replace(expected.find("line 20\n"), 8, "line twenty\n");
  EXPECT_EQ(apply_unified_diff(numbered_lines(30), diff), expected);
}

TEST(UnifiedDiff, LaterHunksFollowTheDriftOfEarlierOnes) {
  // Both hunks stated 5 lines too high; the second also matches only after the first.
  const std::string diff =
      "@@ -5,2 +5,2 @@\n"
      "-line 10\n"
      "+line ten\n"
      " line 11\n"
      "@@ -25,2 +25,2 @@\n"
      "-line 30\n"
      "+line thirty\n"
      " line 31\n";
  std::string expected = numbered_lines(40);
  expected.replace(expected.find("line 10\n"), 8, "line ten\n");
  expected.replace(expected.find("line 30\n"), 8, "line thirty\n");
  EXPECT_EQ(apply_unified_diff(numbered_lines(40), diff), expected);
}

TEST(UnifiedDiff, TrustsTheLinesNotTheHeaderCounts) {
  const std::string diff =
      "@@ -2,7 +2,1 @@\n"
      " line 2\n"
      "-line 3\n"
      "+line 3a\n"
      "+line 3b\n"
      " line 4\n";
  EXPECT_EQ(apply_unified_diff(numbered_lines(5), diff), "line 1\nline 2\nline 3a\nline 3b\nline 4\nline 5\n");
}

TEST(UnifiedDiff, HeaderCountsMayBeLeftOut) {
  EXPECT_EQ(apply_unified_diff("a\nb\n", "@@ -2 +2 @@\n-b\n+c\n"), "a\nc\n");
}

TEST(UnifiedDiff, ToleratesCrlfAndAMissingFinalNewlineInTheDiff) {
  const std::string diff = "--- a/x\r\n+++ b/x\r\n@@ -1,3 +1,3 @@\r\n line 1\r\n-line 2\r\n+line two\r\n line 3";
  EXPECT_EQ(apply_unified_diff(numbered_lines(3), diff), "line 1\nline two\nline 3\n");
}

TEST(UnifiedDiff, BareBlankLinesAreEmptyContextLines) {
  const std::string original = "int a;\n\nint b;\n";
  const std::string diff = "@@ -1,3 +1,3 @@\n int a;\n\n-int b;\n+int c;\n";
  EXPECT_EQ(apply_unified_diff(original, diff), "int a;\n\nint c;\n");
}

TEST(UnifiedDiff, BlankLinesBetweenHunksArePadding) {
  const std::string diff =
      "@@ -1,2 +1,2 @@\n"
      "-line 1\n"
      "+line one\n"
      " line 2\n"
      "\n"
      "@@ -5,2 +5,2 @@\n"
      " line 5\n"
      "-line 6\n"
      "+line six\n"
      "\n";
  EXPECT_EQ(apply_unified_diff(numbered_lines(6), diff), "line one\nline 2\nline 3\nline 4\nline 5\nline six\n");
}

TEST(UnifiedDiff, KeepsAMissingFinalNewlineOfTheOriginal) {
  EXPECT_EQ(apply_unified_diff("a\nb\nc", "@@ -1,2 +1,2 @@\n-a\n+A\n b\n"), "A\nb\nc");
}

TEST(UnifiedDiff, NoNewlineMarkerOnTheNewSideDropsTheFinalNewline) {
  const std::string diff = "@@ -2,2 +2,2 @@\n b\n-c\n+C\n\\ No newline at end of file\n";
  EXPECT_EQ(apply_unified_diff("a\nb\nc\n", diff), "a\nb\nC");
}

TEST(UnifiedDiff, NoNewlineMarkerOnTheOldSideOnlyAddsTheFinalNewline) {
  const std::string diff = "@@ -2,2 +2,2 @@\n b\n-c\n\\ No newline at end of file\n+c\n";
  EXPECT_EQ(apply_unified_diff("a\nb\nc", diff), "a\nb\nc\n");
}

TEST(UnifiedDiff, NoNewlineMarkerOnContextKeepsItMissing) {
  const std::string diff = "@@ -1,2 +1,3 @@\n a\n+inserted\n b\n\\ No newline at end of file\n";
  EXPECT_EQ(apply_unified_diff("a\nb", diff), "a\ninserted\nb");
}

TEST(UnifiedDiff, InsertsAtTheStartAndIntoAnEmptyText) {
  EXPECT_EQ(apply_unified_diff("b\n", "@@ -0,0 +1 @@\n+a\n"), "a\nb\n");
  EXPECT_EQ(apply_unified_diff("", "--- /dev/null\n+++ b/new.cpp\n@@ -0,0 +1,2 @@\n+int x;\n+int y;\n"), "int x;\nint y;\n");
}

TEST(UnifiedDiff, PureInsertionGoesAfterTheStatedLine) {
  EXPECT_EQ(apply_unified_diff("a\nb\nc\n", "@@ -2,0 +3 @@\n+between\n"), "a\nb\nbetween\nc\n");
}

TEST(UnifiedDiff, AHunkThatMatchesNowhereNamesItsNumberHeaderAndFirstDifferentLine) {
  const std::string diff =
      "@@ -1,2 +1,2 @@\n"
      "-line 1\n"
      "+line one\n"
      " line 2\n"
      "@@ -4,3 +4,3 @@ void f()\n"
      " line 4\n"
      "-line 5 changed\n"
      "+line five\n"
      " line 6\n";
  EXPECT_EQ(diff_error(numbered_lines(8), diff),
            "hunk 2 (@@ -4,3 +4,3 @@ void f()) matches nowhere within 50 lines of line 4: its line \"line 5 changed\" "
            "does not match line 5 of the source (\"line 5\")");
}

TEST(UnifiedDiff, SearchesNoFurtherThanFiftyLines) {
  const std::string diff = "@@ -1,2 +1,2 @@\n-line 60\n+line sixty\n line 61\n";
  EXPECT_EQ(diff_error(numbered_lines(70), diff),
            "hunk 1 (@@ -1,2 +1,2 @@) matches nowhere within 50 lines of line 1: its line \"line 60\" does not match "
            "line 1 of the source (\"line 1\")");
  const std::string near = "@@ -10,2 +10,2 @@\n-line 60\n+line sixty\n line 61\n";
  EXPECT_NE(apply_unified_diff(numbered_lines(70), near).find("line sixty\nline 61\n"), std::string::npos);
}

TEST(UnifiedDiff, AHunkPastTheEndSaysSo) {
  EXPECT_EQ(diff_error("a\nb\n", "@@ -5,2 +5,2 @@\n x\n-y\n+z\n"),
            "hunk 1 (@@ -5,2 +5,2 @@) matches nowhere within 50 lines of line 3: its line \"x\" falls past the end of "
            "the source (2 lines)");
}

TEST(UnifiedDiff, AnAmbiguousHunkAsksForMoreContext) {
  const std::string original = "{\n}\nint a;\n{\n}\nint b;\n";
  EXPECT_EQ(diff_error(original, "@@ -3,2 +3,2 @@\n-{\n+[\n }\n"),
            "hunk 1 (@@ -3,2 +3,2 @@) does not match at line 3 and matches at several lines near it (1, 4): give it "
            "more context lines");
}

TEST(UnifiedDiff, MalformedDiffsAreErrors) {
  EXPECT_EQ(diff_error("a\n", "just some text\n"), "the diff has no hunk (no \"@@ -a,b +c,d @@\" line)");
  EXPECT_EQ(diff_error("a\n", "@@ -1 +1 @@\n-a\n+b\n@@ here @@\n"),
            "hunk 2 header \"@@ here @@\" is not of the form @@ -a,b +c,d @@");
  EXPECT_EQ(diff_error("a\n", "@@ -1 +1 @@\n-a\nb\n"),
            "hunk 1 (@@ -1 +1 @@): line \"b\" starts with neither ' ', '-' nor '+'");
  EXPECT_EQ(diff_error("a\n", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-c\n+d\n"),
            "the diff changes more than one file (a second header \"--- a/y\"); send one file's diff");
}

TEST(UnifiedDiff, LooksLikeUnifiedDiff) {
  EXPECT_TRUE(looks_like_unified_diff("--- a/x\n+++ b/x\n@@ -1,3 +1,4 @@\n a\n"));
  EXPECT_TRUE(looks_like_unified_diff("@@ -7 +7 @@ int main()\r\n-a\r\n+b\r\n"));
  EXPECT_FALSE(looks_like_unified_diff("int main() { return 0; }\n"));
  EXPECT_FALSE(looks_like_unified_diff("// @@ -1,3 +1,4 @@ in a comment\n"));
  EXPECT_FALSE(looks_like_unified_diff("@@ here @@\n"));
}


// Found by fuzz_unified_diff: a hunk header with a 200-digit line number threw std::out_of_range past the parser.
TEST(UnifiedDiffTest, AHugeLineNumberIsADiffErrorNotAnException) {
  const std::string diff = "--- a/f\n+++ b/f\n@@ -" + std::string(200, '2') + ",3 +1,3 @@\n-two\n+2\n";
  EXPECT_THROW(apply_unified_diff("one\ntwo\nthree\n", diff), DiffError) << "no match within 50 lines of line 2e199";
}

}  // namespace
}  // namespace kernelarc::llm
