<?php

// The partner API from a partner's own server: one method per partner and public operation of the
// service's OpenAPI document, grouped as the TypeScript client groups them. Which method and path
// each operation has, whether it takes the key and an Idempotency-Key, and which fields its body
// may carry come from the generated tables (Generated/Operations.php, Generated/Schemas.php).
// HTTP goes through PHP's own streams, so nothing but php-cli is needed (no curl extension).

declare(strict_types=1);

namespace PartnerDelivery;

use PartnerDelivery\Generated\Operations;
use PartnerDelivery\Generated\Schemas;
use PartnerDelivery\Resources\Deliveries;
use PartnerDelivery\Resources\PaymentMethods;
use PartnerDelivery\Resources\Places;
use PartnerDelivery\Resources\Quotes;
use PartnerDelivery\Resources\ServiceArea;
use PartnerDelivery\Resources\Tracking;
use PartnerDelivery\Resources\Webhook;

final class PartnerClient
{
    /** The document's `servers[0].url`: every path of the API is under it. */
    public const API_PREFIX = '/api/v1';
    public const VERSION = '0.1.0';

    /** Only these may succeed later: 429 (over a rate limit, after Retry-After) and 503 (a backing service unreachable). */
    private const RETRIED = [429, 503];

    public readonly Quotes $quotes;
    public readonly ServiceArea $serviceArea;
    public readonly Deliveries $deliveries;
    public readonly PaymentMethods $paymentMethods;
    public readonly Webhook $webhook;
    public readonly Tracking $tracking;
    public readonly Places $places;

    private readonly string $apiUrl;
    private readonly int $retries;
    private readonly int $initialDelayMs;
    private readonly int $maxDelayMs;
    private readonly float $timeoutSeconds;
    /** @var callable(int): void */
    private $sleep;

    /**
     * @param string $baseUrl The service's address, such as `https://deliveries.example.com.gh`; the API is under `/api/v1` of it.
     * @param string $apiKey `sk_live_…` or `sk_test_…`. Sent to the partner endpoints only, never to the public ones.
     * @param array{retries?: int, initialDelayMs?: int, maxDelayMs?: int, timeoutSeconds?: float, sleep?: callable(int): void} $options
     *        retries: tries after the first of a 429 or 503 (3); initialDelayMs: the first wait when the answer names
     *        none, doubled each time (500); maxDelayMs: the longest wait, a Retry-After beyond it is not waited for
     *        (30000); timeoutSeconds: per request (30); sleep: how to wait, in milliseconds (tests pass their own).
     */
    public function __construct(string $baseUrl, private readonly string $apiKey, array $options = [])
    {
        $this->apiUrl = rtrim($baseUrl, '/') . self::API_PREFIX;
        $this->retries = $options['retries'] ?? 3;
        $this->initialDelayMs = $options['initialDelayMs'] ?? 500;
        $this->maxDelayMs = $options['maxDelayMs'] ?? 30_000;
        $this->timeoutSeconds = $options['timeoutSeconds'] ?? 30.0;
        $this->sleep = $options['sleep'] ?? static function (int $ms): void {
            usleep($ms * 1000);
        };
        $this->quotes = new Quotes($this);
        $this->serviceArea = new ServiceArea($this);
        $this->deliveries = new Deliveries($this);
        $this->paymentMethods = new PaymentMethods($this);
        $this->webhook = new Webhook($this);
        $this->tracking = new Tracking($this);
        $this->places = new Places($this);
    }

    /**
     * Calls one operation of the document by its operationId, and returns the decoded JSON answer
     * (arrays for objects). An operation that takes an Idempotency-Key is sent one: $idempotencyKey,
     * or one made here, the same on every retry, so a try that was answered but whose answer was
     * lost does not act twice. Every answer outside 2xx throws a PartnerApiError.
     *
     * @param array<string, string> $path
     * @param array<string, scalar|null> $query
     * @param array<string, mixed>|null $body
     * @param array<string, string> $headers
     */
    public function call(string $operationId, array $path = [], array $query = [], ?array $body = null, array $headers = [], ?string $idempotencyKey = null): mixed
    {
        $operation = Operations::ALL[$operationId] ?? throw new \InvalidArgumentException("No operation {$operationId} in the API's document");
        $url = $this->apiUrl . preg_replace_callback(
            '/\{([^}]+)\}/',
            static fn (array $m): string => rawurlencode($path[$m[1]] ?? throw new \InvalidArgumentException("{$operationId} needs {$m[1]}")),
            $operation['path'],
        );
        $query = array_filter($query, static fn ($value): bool => $value !== null);
        $unknown = array_diff(array_keys($query), $operation['query']);
        if ($unknown !== []) {
            throw new \InvalidArgumentException("{$operationId} takes no query parameter " . implode(', ', $unknown));
        }
        if ($query !== []) {
            $url .= '?' . http_build_query($query, '', '&', PHP_QUERY_RFC3986);
        }
        $send = ['Accept' => 'application/json'];
        if ($operation['keyed']) {
            $send['Authorization'] = "Bearer {$this->apiKey}";
        }
        if ($operation['idempotent']) {
            $send['Idempotency-Key'] = $idempotencyKey ?? self::newKey();
        }
        foreach ($headers as $name => $value) {
            if (!in_array($name, $operation['headers'], true)) {
                throw new \InvalidArgumentException("{$operationId} takes no header {$name}");
            }
            $send[$name] = $value;
        }
        $content = null;
        if ($body !== null) {
            $fields = Schemas::FIELDS[$operation['body']] ?? [];
            // A misspelt field would be refused by the service anyway; said here, before anything is sent.
            $unknown = array_diff(array_keys($body), array_keys($fields));
            if ($unknown !== []) {
                throw new \InvalidArgumentException("{$operation['body']} has no field " . implode(', ', $unknown));
            }
            $send['Content-Type'] = 'application/json';
            $content = json_encode($body, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION);
        }
        $answer = $this->withRetries(fn (): array => $this->send($operation['method'], $url, $send, $content));
        return $answer['body'] === '' ? null : json_decode($answer['body'], true, 512, JSON_THROW_ON_ERROR);
    }

    /**
     * GETs an absolute URL without the key (a proof photo's signed link is its own credential) and
     * returns the bytes.
     */
    public function download(string $url): string
    {
        return $this->withRetries(fn (): array => $this->send('GET', $url, [], null))['body'];
    }

    /**
     * Runs $try until it succeeds, is refused for good, or the retries are spent, as the
     * TypeScript client's withRetries does.
     *
     * @param callable(): array{status: int, headers: array<string, string>, body: string} $try
     * @return array{status: int, headers: array<string, string>, body: string}
     */
    private function withRetries(callable $try): array
    {
        for ($attempt = 0; ; $attempt++) {
            $answer = $try();
            if ($answer['status'] >= 200 && $answer['status'] < 300) {
                return $answer;
            }
            $error = PartnerApiError::fromResponse($answer['status'], $answer['headers'], $answer['body']);
            if (!in_array($error->status, self::RETRIED, true) || $attempt >= $this->retries) {
                throw $error;
            }
            $wait = $error->retryAfterSeconds !== null
                ? $error->retryAfterSeconds * 1000
                : min($this->initialDelayMs * 2 ** $attempt, $this->maxDelayMs);
            // Trying sooner than the service asked would only be refused again.
            if ($wait > $this->maxDelayMs) {
                throw $error;
            }
            ($this->sleep)($wait);
        }
    }

    /**
     * One HTTP exchange over PHP's http stream wrapper.
     *
     * @param array<string, string> $headers
     * @return array{status: int, headers: array<string, string>, body: string}
     */
    private function send(string $method, string $url, array $headers, ?string $content): array
    {
        $headers['User-Agent'] = 'partner-delivery-php/' . self::VERSION;
        $lines = [];
        foreach ($headers as $name => $value) {
            $lines[] = "{$name}: {$value}";
        }
        $http = [
            'method' => $method,
            'header' => implode("\r\n", $lines),
            'ignore_errors' => true, // a 4xx or 5xx is an answer to read, not a failure to warn about
            'follow_location' => 0, // the key never follows a redirect elsewhere
            'timeout' => $this->timeoutSeconds,
        ];
        if ($content !== null) {
            $http['content'] = $content;
        }
        $context = stream_context_create(['http' => $http]);
        error_clear_last();
        $body = @file_get_contents($url, false, $context);
        $raw = function_exists('http_get_last_response_headers') ? (http_get_last_response_headers() ?? []) : ($http_response_header ?? []);
        if ($body === false || $raw === []) {
            $why = error_get_last()['message'] ?? 'no answer';
            throw new \RuntimeException("{$method} {$url}: {$why}");
        }
        $status = preg_match('#^HTTP/\S+\s+(\d{3})#', $raw[0], $m) === 1 ? (int) $m[1] : 0;
        $received = [];
        foreach (array_slice($raw, 1) as $line) {
            $colon = strpos($line, ':');
            if ($colon !== false) {
                $received[strtolower(trim(substr($line, 0, $colon)))] = trim(substr($line, $colon + 1));
            }
        }
        return ['status' => $status, 'headers' => $received, 'body' => $body];
    }

    /** A random (version 4) UUID, the Idempotency-Key of a call given none. */
    private static function newKey(): string
    {
        $bytes = random_bytes(16);
        $bytes[6] = chr((ord($bytes[6]) & 0x0f) | 0x40);
        $bytes[8] = chr((ord($bytes[8]) & 0x3f) | 0x80);
        return vsprintf('%s%s-%s-%s-%s-%s%s%s', str_split(bin2hex($bytes), 4));
    }
}
