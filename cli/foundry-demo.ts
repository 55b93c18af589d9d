/**
 * `load-demo-tables --tenant SLUG [--dir ../shared/data/ml]`: the real ML sets as the
 * tenant's custom tables (replace mode, so a rerun changes nothing). Headerless files get
 * their column names from the sets' .names files and MANIFEST.md (one table map below).
 * Without the shared folder, german_credit is loaded from the repository's fixtures/ml/.
 * CAIRN_RUN_SKIP_DEMO_DATA=1 loads german_credit only.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { openCliFoundryTables } from "../composition/foundry-tables.ts";
import type { CliContext, Command } from "./context.ts";
import { fail, printJson } from "./context.ts";

interface DemoTable {
  name: string;
  file: string;
  header?: boolean;
  columns?: string[];
  delimiter?: string;
  nullValues?: string[];
}

const seq = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);

export const GERMAN_CREDIT_COLUMNS = [
  "checking_status",
  "duration",
  "credit_history",
  "purpose",
  "credit_amount",
  "savings",
  "employment",
  "installment_rate",
  "personal_status",
  "other_debtors",
  "residence_since",
  "property",
  "age",
  "other_installment_plans",
  "housing",
  "existing_credits",
  "job",
  "num_dependents",
  "telephone",
  "foreign_worker",
  "class",
];

const GERMAN: DemoTable = {
  name: "german_credit",
  file: "classification/german_credit.csv",
  header: false,
  columns: GERMAN_CREDIT_COLUMNS,
};

/** Every set, relative to the ml folder; names from the .names files and MANIFEST.md. */
export const DEMO_TABLES: DemoTable[] = [
  GERMAN,
  { name: "bank_marketing", file: "classification/bank_marketing_additional_full.csv", delimiter: ";" },
  {
    name: "adult",
    file: "classification/adult_train.csv",
    header: false,
    columns: [
      "age",
      "workclass",
      "fnlwgt",
      "education",
      "education_num",
      "marital_status",
      "occupation",
      "relationship",
      "race",
      "sex",
      "capital_gain",
      "capital_loss",
      "hours_per_week",
      "native_country",
      "income",
    ],
    nullValues: [" ?"],
  },
  { name: "titanic", file: "classification/titanic_train.csv" },
  {
    name: "breast_cancer_wisconsin",
    file: "classification/breast_cancer_wisconsin.csv",
    header: false,
    columns: [
      "clump_thickness",
      "cell_size_uniformity",
      "cell_shape_uniformity",
      "marginal_adhesion",
      "single_epithelial_cell_size",
      "bare_nuclei",
      "bland_chromatin",
      "normal_nucleoli",
      "mitoses",
      "class",
    ],
    nullValues: ["?"],
  },
  { name: "california_housing", file: "regression/california_housing.csv" },
  {
    name: "abalone",
    file: "regression/abalone.csv",
    header: false,
    columns: [
      "sex",
      "length",
      "diameter",
      "height",
      "whole_weight",
      "shucked_weight",
      "viscera_weight",
      "shell_weight",
      "rings",
    ],
  },
  {
    name: "boston_housing",
    file: "regression/boston_housing.csv",
    header: false,
    columns: ["crim", "zn", "indus", "chas", "nox", "rm", "age", "dis", "rad", "tax", "ptratio", "b", "lstat", "medv"],
  },
  {
    name: "winequality_white",
    file: "regression/winequality_white.csv",
    header: false,
    columns: [
      "fixed_acidity",
      "volatile_acidity",
      "citric_acid",
      "residual_sugar",
      "chlorides",
      "free_sulfur_dioxide",
      "total_sulfur_dioxide",
      "density",
      "ph",
      "sulphates",
      "alcohol",
      "quality",
    ],
  },
  {
    name: "mammography",
    file: "imbalanced/mammography.csv",
    header: false,
    columns: [...seq("attr_", 6), "class"],
  },
  {
    name: "oil_spill",
    file: "imbalanced/oil_spill.csv",
    header: false,
    columns: ["patch_id", ...seq("f_", 48), "target"],
  },
  { name: "airline_passengers", file: "timeseries/airline_passengers_monthly.csv" },
  { name: "monthly_sunspots", file: "timeseries/monthly_sunspots.csv" },
  { name: "daily_min_temperatures", file: "timeseries/daily_min_temperatures_melbourne.csv" },
  { name: "monthly_car_sales", file: "timeseries/monthly_car_sales_quebec.csv" },
  { name: "beijing_pm25", file: "timeseries/beijing_pm25_hourly.csv" },
  { name: "nab_nyc_taxi", file: "anomaly/nab_nyc_taxi.csv" },
  { name: "nab_machine_temperature", file: "anomaly/nab_machine_temperature_system_failure.csv" },
  { name: "nab_ec2_request_latency", file: "anomaly/nab_ec2_request_latency_system_failure.csv" },
];

const REPO_FIXTURES = join(import.meta.dir, "..", "fixtures", "ml");

export const loadDemoTables: Command = async ({ flags, config, store }: CliContext) => {
  const slug = flags.tenant;
  if (!slug) fail("load-demo-tables needs --tenant SLUG");
  const tenant = await store.getTenantBySlug(slug);
  if (!tenant) fail(`unknown tenant '${slug}'`);
  const tables = openCliFoundryTables(config);
  if (!tables) fail("load-demo-tables needs a lakehouse (CAIRN_LAKEHOUSE_URL)");
  const dir = flags.dir ?? join(process.cwd(), "..", "shared", "data", "ml");
  const onlyGerman = !existsSync(dir) || process.env.CAIRN_RUN_SKIP_DEMO_DATA === "1";
  const ref = { tenantId: tenant.tenant_id, slug: tenant.slug };
  const loaded: { name: string; rows: number }[] = [];
  for (const t of onlyGerman ? [GERMAN] : DEMO_TABLES) {
    const path =
      onlyGerman && !existsSync(join(dir, t.file)) ? join(REPO_FIXTURES, "german_credit.csv") : join(dir, t.file);
    if (!existsSync(path)) {
      process.stderr.write(`cairn: load-demo-tables: ${path} is missing, skipped\n`);
      continue;
    }
    const out = await tables.importFile(ref, t.name, "replace", {
      bytes: new Uint8Array(readFileSync(path)),
      opts: {
        format: "csv",
        header: t.header ?? true,
        columns: t.columns ?? null,
        delimiter: t.delimiter ?? ",",
        nullValues: t.nullValues ?? [],
      },
    });
    loaded.push({ name: out.name, rows: out.row_count });
  }
  printJson({ tenant: tenant.slug, tables: loaded });
};
