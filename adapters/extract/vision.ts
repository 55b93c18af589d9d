/**
 * Chart and diagram descriptions from a vision model behind any OpenAI-compatible chat
 * completions endpoint (OpenAI, vLLM, Ollama, LM Studio...): one user message with the
 * image as a data URL and the OCR text as a hint. Only used when configured.
 */
import { VISION_LABEL } from "../../domain/documents/image-description.ts";

export interface VisionConfig {
  /** Base URL of the API, e.g. https://api.openai.com/v1 (".../chat/completions" is appended). */
  url: string;
  model: string;
  apiKey?: string | undefined;
  timeoutMs: number;
}

const PROMPT =
  "Describe this image for a search index of financial and business documents. " +
  "If it is a chart, name the chart type, axes, series, periods and the values or trend shown. " +
  "If it is a table, diagram or form, say what it contains and how it is organised. " +
  "Be factual and concise (at most 150 words); do not invent numbers you cannot read.";

export async function describeWithVision(
  cfg: VisionConfig,
  image: { mime: string; bytes: Uint8Array },
  ocrText: string,
): Promise<string> {
  const endpoint = `${cfg.url.replace(/\/+$/, "")}/chat/completions`;
  const dataUrl = `data:${image.mime};base64,${Buffer.from(image.bytes).toString("base64")}`;
  const hint = ocrText.trim()
    ? `\n\nText found in the image by OCR (may contain errors):\n${ocrText.slice(0, 2000)}`
    : "";
  const res = await fetch(endpoint, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(cfg.apiKey ? { authorization: `Bearer ${cfg.apiKey}` } : {}),
    },
    body: JSON.stringify({
      model: cfg.model,
      temperature: 0,
      max_tokens: 400,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: PROMPT + hint },
            { type: "image_url", image_url: { url: dataUrl } },
          ],
        },
      ],
    }),
    signal: AbortSignal.timeout(cfg.timeoutMs),
  });
  if (!res.ok) throw new Error(`vision model answered ${res.status}`);
  const body = (await res.json()) as { choices?: { message?: { content?: unknown } }[] };
  const content = body.choices?.[0]?.message?.content;
  const text = typeof content === "string" ? content.trim() : "";
  if (!text) throw new Error("vision model returned no description");
  return `${VISION_LABEL} ${cfg.model}] ${text}`;
}
