import { InvokeCommand, type LambdaClient } from "@aws-sdk/client-lambda";
import type { CsrSigner, CsrSigningAnswer, CsrSigningRequest } from "./contract";

/**
 * The API's side of the CA signer on AWS: a synchronous Lambda invoke of the signer's function,
 * which has no route of its own. A failure of the function (not a refusal) is an error here.
 */
export class LambdaCsrSigner implements CsrSigner {
  constructor(private readonly deps: { lambda: LambdaClient; functionName: string }) {}

  async sign(request: CsrSigningRequest): Promise<CsrSigningAnswer> {
    const out = await this.deps.lambda.send(
      new InvokeCommand({ FunctionName: this.deps.functionName, Payload: new TextEncoder().encode(JSON.stringify(request)) }),
    );
    const text = out.Payload === undefined ? "" : new TextDecoder().decode(out.Payload);
    if (out.FunctionError !== undefined) throw new Error(`the CA signer failed (${out.FunctionError}): ${text.slice(0, 500)}`);
    return JSON.parse(text) as CsrSigningAnswer;
  }
}
